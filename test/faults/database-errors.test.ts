import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { classifyError } from '../../src/core/errors.js';
import { databaseUnavailable, isDriverSocketFault, raceFailure } from '../../src/db/errors.js';
import { ActivityQueue } from '../../src/modules/activities/activities.queue.js';
import { toRestFailure } from '../../src/rest/errors.js';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const wrapped = (cause: Error) => new DrizzleQueryError('select 1', [], cause);

describe('database error classifier', () => {
  it('recognises connection failures through cause chains', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'EPIPE',
      'ETIMEDOUT',
      'CONNECTION_CLOSED',
      'CONNECTION_ENDED',
      'CONNECTION_DESTROYED',
      'CONNECT_TIMEOUT',
      '08006',
      '08001',
      '57P01',
      '57P02',
      '57P03',
      '53300',
    ]) {
      expect(databaseUnavailable(coded(code)), code).toBe(true);
      expect(databaseUnavailable(wrapped(coded(code))), code).toBe(true);
    }
    expect(databaseUnavailable(new AggregateError([coded('ECONNREFUSED')]))).toBe(true);
    expect(databaseUnavailable(wrapped(coded('23505')))).toBe(false);
    // A protocol violation (too many parameters, on the embedded database) fails the same on every retry.
    expect(databaseUnavailable(wrapped(coded('08P01')))).toBe(false);
    expect(databaseUnavailable(new Error('plain'))).toBe(false);
    expect(databaseUnavailable(undefined)).toBe(false);
  });

  it('maps an outage to code 20 with HTTP 503, and data exceptions to code 4 with 400', () => {
    const down = toRestFailure(wrapped(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')), 'req-1');
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({ code: 20, type: 'DATABASE_UNAVAILABLE', param: null, requestId: 'req-1' });
    expect(down.body.error.message).not.toContain('5432');
    for (const sqlstate of ['22P02', '22003', '22021', '22P05', '22008']) {
      const failure = toRestFailure(wrapped(coded(sqlstate)), 'req-2');
      expect(failure.status, sqlstate).toBe(400);
      expect(failure.body.error, sqlstate).toMatchObject({ code: 4, type: 'INVALID_PARAMETER', param: null });
    }
    expect(toRestFailure(new Error('bug'), 'req-3')).toMatchObject({ status: 500, body: { error: { code: 20, type: 'INTERNAL' } } });
  });

  it('maps the data exceptions a real engine raises', async () => {
    const db = await PGlite.create();
    try {
      const failing = async (statement: string) =>
        db.query(statement).then(
          () => undefined,
          (error: unknown) => error,
        );
      for (const statement of ["select 'abc'::int", 'select 99999999999::int', "select '10000-01-01'::timestamptz + interval '1000000 years'"]) {
        const error = await failing(statement);
        expect(classifyError(wrapped(error as Error), { surface: 'rest', requestId: 'req-4' }), statement).toMatchObject({ kind: 'database', code: 'INVALID_PARAMETER', number: 4, status: 400 });
      }
    } finally {
      await db.close();
    }
  });

  it("names the schema's constraint of a race, as PostgreSQL reports it and as a Citus coordinator raises a shard's", () => {
    // PostgreSQL and PGlite: the constraint in its own field.
    expect(raceFailure(wrapped(Object.assign(coded('23503'), { constraint_name: 'activity_records_member_fk' })))).toEqual({ kind: 'member-gone' });
    // Citus: the shard's failure raised again with its message and detail, without the field, and the shard's id on the name.
    const shardForeignKey = coded('23503', 'insert or update on table "activity_records_102044" violates foreign key constraint "activity_records_member_fk_102044"');
    expect(raceFailure(wrapped(shardForeignKey))).toEqual({ kind: 'member-gone' });
    const shardUnique = Object.assign(coded('23505', 'duplicate key value violates unique constraint "member_services_account_network_uid_key_102020"'), {
      detail: 'Key (account_id, network, uid)=(1, email, ann@example.com) already exists.',
    });
    expect(raceFailure(wrapped(shardUnique))).toEqual({ kind: 'identity-taken', network: 'email' });
    // Another constraint's violation is no race.
    expect(raceFailure(wrapped(coded('23503', 'violates foreign key constraint "activity_records_brand_fk_102044"')))).toBeUndefined();
  });

  it("recognises only postgres.js's null-socket write as the driver socket fault", () => {
    const fault = new TypeError("Cannot read properties of null (reading 'write')");
    fault.stack = `${fault.message}\n    at Immediate.nextWrite (/app/node_modules/postgres/cjs/src/connection.js:255:22)`;
    expect(isDriverSocketFault(fault)).toBe(true);
    expect(isDriverSocketFault(new TypeError("Cannot read properties of null (reading 'write')"))).toBe(false);
  });
});

describe('activity queue worker', () => {
  let queue: ActivityQueue | undefined;
  afterAll(() => queue?.stop());
  const logged: { level: string; message: string }[] = [];
  const log = {
    warn: (_: unknown, message: string) => logged.push({ level: 'warn', message }),
    info: (message: string) => logged.push({ level: 'info', message }),
  };
  let down = true;
  // Only what a pass touches: a transaction that fails while the database is down, or finds nothing.
  const db = {
    transaction: async () => {
      if (down) throw wrapped(coded('ECONNREFUSED'));
      return 'empty';
    },
  };
  beforeAll(() => {
    queue = new ActivityQueue(db as never, log as never, 20);
  });

  it('logs an outage once, not on every tick, keeps ticking, and logs the recovery once', async () => {
    queue!.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(logged).toEqual([{ level: 'warn', message: expect.stringContaining('database unavailable') }]);
    down = false;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logged.slice(1)).toEqual([{ level: 'info', message: expect.stringContaining('succeed again') }]);
  });
});
