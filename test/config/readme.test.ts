import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { ensureDemoAccount } from '../../src/modules/tenancy/demo.js';
import { listAccounts } from '../../src/modules/tenancy/tenancy.queries.js';
import { clearKeyCache, resolveApiKey } from '../../src/modules/tenancy/tenancy.service.js';
import { temporaryDirectory } from '../support/leftovers.js';

/**
 * The README's CLI examples, run as written and in the order written, on a DATA_DIR where the first
 * start has made the demo account: each succeeds, the ids it prints are those the README shows,
 * and the demo account comes out as it went in. (Run as `npm run cli` runs them, without npm's own start.)
 */
const run = promisify(execFile);
const dataDir = temporaryDirectory('readme');
const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent', ENV_FILE: '' };

/** `npm run cli -- a "b c" --d  # comment` (or `npm run -s cli -- …`) → its arguments and the comment. */
function exampleLines() {
  const readme = fs.readFileSync(path.resolve('README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Administer it'), readme.indexOf('## Scripts'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
  return block
    .split('\n')
    .filter((line) => /^npm run (-s )?cli -- /.test(line))
    .map((line) => {
      const [command, comment = ''] = line.split(/\s+#\s/);
      const args = [...command.replace(/^npm run (-s )?cli -- /, '').matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]);
      return { line, args, comment };
    });
}

async function withDatabase<T>(work: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>): Promise<T> {
  const database = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'pglite') });
  try {
    clearKeyCache();
    return await work(database.db);
  } finally {
    await database.close();
  }
}

describe("the README's CLI examples", () => {
  it('work in the order written after the first start, and leave the demo account alone', { timeout: 600_000 }, async () => {
    const demo = await withDatabase((db) => ensureDemoAccount(db, dataDir));
    expect(demo).toMatchObject({ accountId: 1, applicationId: 1, created: true });

    const lines = exampleLines();
    expect(lines.length).toBeGreaterThanOrEqual(7);
    const outputs: string[] = [];
    for (const { line, args } of lines) {
      const { stdout } = await run(process.execPath, ['scripts/run.mjs', 'cli', ...args], { env, cwd: process.cwd() }).catch((error: Error & { stderr?: string }) => {
        throw new Error(`${line}\n${error.stderr ?? String(error)}`);
      });
      outputs.push(stdout);
    }
    // The first line's output is shown on the README's next line.
    const readme = fs.readFileSync(path.resolve('README.md'), 'utf8');
    const shown = JSON.parse(/# (\{"accountId".*?\})/.exec(readme)![1].replace('mq_…', 'mq_'));
    expect(JSON.parse(outputs[0])).toMatchObject({ accountId: shown.accountId, applicationId: shown.applicationId, apiKey: expect.stringMatching(/^mq_/) });
    // Key numbers the comments give are the ones made.
    const keyList = outputs[lines.findIndex(({ args }) => args[0] === 'key' && args[1] === 'list')];
    for (const { comment } of lines) {
      const key = /\(key (\d+)\)/.exec(comment)?.[1];
      if (key) expect(keyList).toMatch(new RegExp(`^\\s*${key}\\b`, 'm'));
    }

    await withDatabase(async (db) => {
      expect(await resolveApiKey(db, demo!.apiKey)).toMatchObject({ kind: 'application', accountId: 1, applicationId: 1, plan: 'enterprise' });
      expect((await listAccounts(db)).map((account) => account.name)).toEqual(['demo', 'Label One']);
    });
  });
});
