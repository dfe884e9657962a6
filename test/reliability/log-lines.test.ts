import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../support/database.js';

/**
 * A failed statement in a log line: its first characters, its SQLSTATE and how many parameters it
 * had, never the parameters (drizzle's error repeats them all in its message), whatever its size.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.close());

describe('log lines of failed statements', () => {
  it("hold the statement's start, its SQLSTATE and its number of parameters, not the parameters", async () => {
    const values = Array.from({ length: 5000 }, (_, index) => sql`(${`secret-value-${index}`}::text)`);
    const error = await database.db.execute(sql`select v from (values ${sql.join(values, sql`, `)}) as t(v) join no_such_table n on n.v = t.v`).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(Error);
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    createLogger({ logLevel: 'info' }, sink).warn({ err: error }, 'pass failed');
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).not.toContain('secret-value-');
    expect(line.length).toBeLessThan(4000);
    const logged = JSON.parse(line).err;
    expect(logged.statement).toMatch(/^select v from \(values/);
    expect(logged.parameters).toBe(5000);
    // undefined_table
    expect(logged.sqlState).toBe('42P01');
  });
});
