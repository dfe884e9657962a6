import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { apiChanges, type ApiChange, type ApiDocuments } from './api-changes.js';

const root = new URL('../../', import.meta.url);
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * The commit of a release: its tag `v<version>`, else (a clone without tags) the commit that set
 * package.json's version to it, which is the release commit scripts/release.ts makes. Undefined in a
 * shallow clone that lacks it.
 */
export function releaseCommit(version: string): string | undefined {
  try {
    return git('rev-parse', '--verify', '--quiet', `refs/tags/v${version}^{commit}`);
  } catch {
    const line = `"version": "${version}"`.replaceAll('.', '\\.');
    return git('log', '-1', '--format=%H', `-G${line}`, '--', 'package.json') || undefined;
  }
}

export function isShallowClone(): boolean {
  return git('rev-parse', '--is-shallow-repository') === 'true';
}

/**
 * The API changes since a release's commit. openapi.json is compared from the first release that
 * kept it on (`restCompared` false before).
 */
export async function changesSince(commit: string): Promise<{ changes: ApiChange[]; restCompared: boolean }> {
  const released = documentsAt(commit);
  const current = currentDocuments();
  const restCompared = released.openApi !== null;
  return { changes: await apiChanges(released, restCompared ? current : { ...current, openApi: null }), restCompared };
}

/** schema.graphql and openapi.json as a commit holds them (openapi.json: null before it was kept). */
function documentsAt(commit: string): ApiDocuments {
  const show = (file: string) => {
    try {
      return git('show', `${commit}:${file}`);
    } catch {
      return undefined;
    }
  };
  const openApi = show('openapi.json');
  return { schema: show('schema.graphql') ?? '', openApi: openApi === undefined ? null : JSON.parse(openApi) };
}

function currentDocuments(): ApiDocuments {
  return { schema: readFileSync(new URL('schema.graphql', root), 'utf8'), openApi: JSON.parse(readFileSync(new URL('openapi.json', root), 'utf8')) };
}
