#!/usr/bin/env bash
# Regenerates schema.graphql and console.graphql, openapi.json, the typed operations (the API's, the client suite's and the console's) and the drizzle migrations, and fails when any
# of them differs from what is committed (or a new generated file is not committed yet).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent generate >/dev/null
stale=$(git status --porcelain -- schema.graphql console.graphql openapi.json drizzle src/generated src/http/pages/console/browser/generated test/client/generated)
if [ -n "$stale" ]; then
  echo "Generated files are stale; run 'npm run generate' and commit the result:" >&2
  echo "$stale" >&2
  git --no-pager diff --stat -- schema.graphql console.graphql openapi.json drizzle src/generated src/http/pages/console/browser/generated test/client/generated >&2
  exit 1
fi
echo "generated files are current"
