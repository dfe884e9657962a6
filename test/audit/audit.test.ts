import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.js';
import { listAuditEvents, recordAudit, systemOrigin, type AuditOrigin } from '../../src/modules/audit/audit.js';
import { createEmailHasher } from '../../src/modules/audit/audit-keys.js';
import { createApplication } from '../../src/modules/tenancy/tenancy.service.js';
import { createTestDatabase } from '../support/database.js';

// The log's one write and its reads, on the module's functions: entries of one account, newest
// first, paged by an opaque cursor that survives entries written in the same instant.

let database: DatabaseHandle;
let accountA: number;
let accountB: number;
const key: AuditOrigin = { actor: { type: 'api_key', id: 7, label: 'shop' }, ip: '203.0.113.9', userAgent: 'x'.repeat(2000), requestId: 'req-1' };

beforeAll(async () => {
  database = await createTestDatabase();
  accountA = (await createApplication(database.db, { accountName: 'audit-a', name: 'a', plan: 'advanced' })).account.id;
  accountB = (await createApplication(database.db, { accountName: 'audit-b', name: 'b', plan: 'advanced' })).account.id;
  // 30 entries in one transaction share one now(): only the id orders them.
  await database.db.transaction(async (tx) => {
    for (let i = 0; i < 30; i++) {
      await recordAudit(tx, accountA, i % 3 === 0 ? systemOrigin('cli') : key, { action: i % 2 ? 'fan.edit' : 'fan.export', target: { type: 'fan', id: String(100 + (i % 5)) }, details: { i } });
    }
  });
  await recordAudit(database.db, accountB, key, { action: 'fan.erase', target: { type: 'fan', id: '100' } });
});

afterAll(() => database?.close());

describe('recordAudit', () => {
  it('keeps the entry with its origin, the user agent bounded', async () => {
    const { events } = await listAuditEvents(database.db, accountB, {}, { first: 10 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      accountId: accountB,
      actorType: 'api_key',
      actorId: 7,
      actorLabel: 'shop',
      action: 'fan.erase',
      targetType: 'fan',
      targetId: '100',
      outcome: 'success',
      details: {},
      ip: '203.0.113.9',
      requestId: 'req-1',
    });
    expect(events[0].userAgent).toHaveLength(512);
    expect(events[0].occurredAt).toBeInstanceOf(Date);
  });

  it('records a system actor without an id', async () => {
    const { events } = await listAuditEvents(database.db, accountA, { actorType: 'system' }, { first: 200 });
    expect(events).toHaveLength(10);
    expect(events.every((event) => event.actorId === null && event.actorLabel === 'cli')).toBe(true);
  });
});

describe('listAuditEvents', () => {
  it('pages newest first through entries of the same instant, each once', async () => {
    const seen: number[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await listAuditEvents(database.db, accountA, {}, { first: 7, after });
      seen.push(...page.events.map((event) => event.details.i as number));
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));
  });

  it('narrows by action, actor, target and time', async () => {
    const all = async (filter: Parameters<typeof listAuditEvents>[2]) => (await listAuditEvents(database.db, accountA, filter, { first: 200 })).events.map((event) => event.details.i);
    expect(await all({ action: 'fan.edit' })).toHaveLength(15);
    expect(await all({ actorType: 'api_key', actorId: 7 })).toHaveLength(20);
    expect(await all({ actorType: 'api_key', actorId: 8 })).toEqual([]);
    expect(await all({ targetType: 'fan', targetId: '101' })).toEqual([26, 21, 16, 11, 6, 1]);
    expect(await all({ action: 'fan.edit', targetId: '101' })).toEqual([21, 11, 1]);
    const instant = (await listAuditEvents(database.db, accountA, {}, { first: 1 })).events[0].occurredAt;
    expect(await all({ to: new Date(instant.getTime() - 1000) })).toEqual([]);
    expect(await all({ from: new Date(instant.getTime() - 1000), to: new Date(instant.getTime() + 1000) })).toHaveLength(30);
  });

  it("answers the account's entries only", async () => {
    const { events } = await listAuditEvents(database.db, accountB, { targetId: '100' }, { first: 200 });
    expect(events.map((event) => event.action)).toEqual(['fan.erase']);
    const page = await listAuditEvents(database.db, accountA, {}, { first: 1 });
    // Another account's cursor is a position only: it reads this account's entries from there.
    const other = await listAuditEvents(database.db, accountB, {}, { first: 1, after: page.endCursor });
    expect(other.events.every((event) => event.accountId === accountB)).toBe(true);
  });

  it('cuts a page at 200 and refuses bad arguments, naming them', async () => {
    const page = await listAuditEvents(database.db, accountA, {}, { first: 5000 });
    expect(page.events).toHaveLength(30);
    await expect(listAuditEvents(database.db, accountA, {}, { first: 0 })).rejects.toMatchObject({ extensions: { code: 'INVALID_PARAMETER', param: 'first' } });
    await expect(listAuditEvents(database.db, accountA, {}, { first: 5, after: 'not-a-cursor' })).rejects.toMatchObject({ extensions: { param: 'after' } });
    await expect(listAuditEvents(database.db, accountA, {}, { first: 5, after: Buffer.from('{"i":3}').toString('base64url') })).rejects.toMatchObject({ extensions: { param: 'after' } });
    await expect(listAuditEvents(database.db, accountA, { action: 'fan.delete' }, { first: 5 })).rejects.toMatchObject({ extensions: { param: 'action' } });
    await expect(listAuditEvents(database.db, accountA, { actorType: 'robot' }, { first: 5 })).rejects.toMatchObject({ extensions: { param: 'actorType' } });
    await expect(listAuditEvents(database.db, accountA, { from: new Date('x') }, { first: 5 })).rejects.toMatchObject({ extensions: { param: 'from' } });
    await expect(listAuditEvents(database.db, accountA, { from: new Date(2000), to: new Date(1000) }, { first: 5 })).rejects.toMatchObject({ extensions: { param: 'from' } });
  });
});

describe('the keyed hash of an erased address', () => {
  it('is the same for any case of the address, differs by key, and does not hold the address', () => {
    const hash = createEmailHasher('a-secret-of-at-least-32-characters-long');
    expect(hash('Fan@Example.com')).toBe(hash('fan@example.com'));
    expect(hash('fan@example.com')).toMatch(/^[0-9a-f]{64}$/);
    expect(createEmailHasher('another-secret-of-at-least-32-characters')('fan@example.com')).not.toBe(hash('fan@example.com'));
  });
});
