// Compares the public API (schema.graphql and openapi.json, both generated and current per
// check:generated) with the last release's, and fails on a breaking change that CHANGELOG.md's
// Unreleased section does not name, or on a removal no release deprecated first (scripts/api).
import { readFileSync } from 'node:fs';
import { version } from '../src/version.js';
import { judge } from './api/api-changes.js';
import { changesSince, isShallowClone, releaseCommit } from './api/release-baseline.js';

const commit = releaseCommit(version);
if (!commit) {
  if (isShallowClone()) {
    console.warn(`check:api: release ${version} is not in this shallow clone; fetch the history (git fetch --unshallow --tags) to compare with it`);
    process.exit(0);
  }
  console.error(`check:api: no commit of release ${version} (no tag v${version}, and no commit set package.json's version to it)`);
  process.exit(1);
}

const { changes, restCompared } = await changesSince(commit);
const { problems, breaking } = judge(changes, readFileSync(new URL('../CHANGELOG.md', import.meta.url), 'utf8'));

const graphql = changes.filter((change) => change.api === 'graphql').length;
console.log(`API changes since ${version} (${commit.slice(0, 7)}): ${graphql} in schema.graphql, ${changes.length - graphql} in openapi.json; ${breaking.length} breaking`);
if (!restCompared) console.log(`  openapi.json was not kept at ${version}: the REST interface is compared from the next release on`);
for (const change of breaking) console.log(`  breaking: ${change.api === 'graphql' ? 'schema.graphql' : 'openapi.json'} \`${change.coordinate}\`: ${change.message}`);
if (problems.length) {
  console.error(`\n${problems.length} API change(s) cannot be released as they are:`);
  for (const problem of problems) console.error(`  - ${problem}`);
  process.exit(1);
}
console.log(breaking.length ? 'Every breaking change is named in CHANGELOG.md: the next release is a major version.' : 'No breaking change.');
