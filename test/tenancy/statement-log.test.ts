import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { StatementLine } from '../../src/db/statement-log.js';
import { temporaryDirectory } from '../support/leftovers.js';

// MARQUEE_STATEMENT_LOG is read when src/db/statement-log.ts loads: set it first, then import the
// database code (each test file has a module graph of its own).
const directory = temporaryDirectory('statements');
const before = process.env.MARQUEE_STATEMENT_LOG;
process.env.MARQUEE_STATEMENT_LOG = directory;

let database: DatabaseHandle;

beforeAll(async () => {
  const { createTestDatabase } = await import('../support/database.js');
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.close();
  if (before === undefined) delete process.env.MARQUEE_STATEMENT_LOG;
  else process.env.MARQUEE_STATEMENT_LOG = before;
  fs.rmSync(directory, { recursive: true, force: true });
});

function recorded(): StatementLine[] {
  return fs
    .readdirSync(directory)
    .flatMap((name) => fs.readFileSync(path.join(directory, name), 'utf8').split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line) as StatementLine);
}

it('records each distinct statement once, with the code that asked for it, and not the migrations', async () => {
  const { eq } = await import('drizzle-orm');
  const { accounts } = await import('../../src/db/schema/index.js');
  const { preparedRows } = await import('../../src/db/statements.js');
  const { db } = database;
  for (let i = 0; i < 3; i++) await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, i));
  await db.transaction(async (tx) => {
    await tx.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, 1));
  });
  await preparedRows(db, 'select id from accounts where id = $1', [1]);
  // A builder an async function returns unawaited is sent by its caller's await, in a context older
  // than the builder (which held the stack of the loop's statements above).
  const unawaited = async () => db.select({ createdAt: accounts.createdAt }).from(accounts).where(eq(accounts.name, 'nobody')); // the unawaited builder
  await unawaited();

  const lines = recorded();
  const here = path.relative(process.cwd(), import.meta.filename);
  expect(lines.filter((line) => line.sql.includes('"accounts"."id" = $1'))).toEqual([
    { sql: 'select "id" from "accounts" where "accounts"."id" = $1', from: expect.stringMatching(`^${here}:`) },
    { sql: 'select "name" from "accounts" where "accounts"."id" = $1', from: expect.stringMatching(`^${here}:`) },
  ]);
  expect(lines).toContainEqual({ sql: 'select id from accounts where id = $1', from: expect.stringMatching(`^${here}:`) });
  const builderLine =
    fs
      .readFileSync(import.meta.filename, 'utf8')
      .split('\n')
      .findIndex((line) => line.endsWith('// the unawaited builder')) + 1;
  expect(lines).toContainEqual({ sql: 'select "created_at" from "accounts" where "accounts"."name" = $1', from: `${here}:${builderLine}` });
  expect(lines.some((line) => /create table/i.test(line.sql))).toBe(false);
});
