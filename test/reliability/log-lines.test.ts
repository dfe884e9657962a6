import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
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

/** A stream the logger writes to, and the lines it wrote. */
function capturedLines() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, sink };
}

describe('log lines of failed statements', () => {
  it("hold the statement's start, its SQLSTATE and its number of parameters, not the parameters", async () => {
    const values = Array.from({ length: 5000 }, (_, index) => sql`(${`secret-value-${index}`}::text)`);
    const error = await database.db.execute(sql`select v from (values ${sql.join(values, sql`, `)}) as t(v) join no_such_table n on n.v = t.v`).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(Error);
    const { lines, sink } = capturedLines();
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

  it("name the server's reason and SQLSTATE when the driver's own error is thrown (not drizzle's)", () => {
    // As postgres.js builds it (src/connection.js, queryError): the server's fields on the error,
    // the statement and its parameters as hidden properties.
    const error = new postgres.PostgresError({ message: 'canceling statement due to statement timeout', code: '57014' } as never);
    Object.defineProperties(error, {
      query: { value: `with corrections as (select ${'x, '.repeat(200)}1)` },
      parameters: { value: ['secret-value-1', 'secret-value-2'] },
    });
    const { lines, sink } = capturedLines();
    createLogger({ logLevel: 'info' }, sink).error({ err: error }, 'unexpected error');
    const logged = JSON.parse(lines[0]).err;
    expect(lines[0]).not.toContain('secret-value-');
    expect(logged).toMatchObject({ type: 'PostgresError', message: 'Failed query: canceling statement due to statement timeout', sqlState: '57014', parameters: 2 });
    expect(logged.statement).toMatch(/^with corrections as \(select x, x,.*…$/);
  });
});
