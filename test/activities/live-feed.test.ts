import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { createGlobalKey } from '../../src/modules/tenancy/tenancy.service.js';
import { recordPayloads } from '../../src/modules/activities/live-feed.postgres.js';
import { createActivity, insertBrand, insertMembers, record } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok, type RestParams } from '../support/rest.js';

/**
 * Two gateways: `a` where records are made, `b` where subscribers listen. On PostgreSQL `b` has a
 * database handle (pool and listening connection) of its own on the same database, so a record
 * reaches it only through PostgreSQL; the embedded database has one gateway in the process.
 */
let a: TestGateway;
let b: TestGateway;
let second: DatabaseHandle | undefined;
let app: Tenant;
let other: Tenant;
let spin: number;
let share: number;
let members: number[];
const clients: Client[] = [];

beforeAll(async () => {
  a = await startTestGateway();
  if (a.database.kind === 'postgres') {
    second = await openDatabase({ kind: 'postgres', url: a.database.url!, readUrl: undefined, poolSize: 2 });
    b = await startTestGateway({}, second);
  } else {
    b = a;
  }
  for (const gateway of new Set([a, b])) await gateway.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  app = await a.tenant('advanced');
  other = await a.tenant('advanced');
  spin = await createActivity(a, app, { name: 'Spin', type: 'Listened', points: 2 });
  share = await createActivity(a, app, { name: 'Share', type: 'Shared', points: 5 });
  members = await insertMembers(a, app, [{ country: 'GB' }, { country: 'US' }]);
});

afterEach(async () => {
  // dispose() may answer a promise or nothing: each is made a promise to wait for.
  await Promise.all(clients.splice(0).map(async (client) => client.dispose()));
  // Gone from the gateway that had them, and from what the other knows.
  await vi.waitFor(() => {
    for (const tenant of [app, other]) {
      expect(b.gateway.liveFeed.subscriberCount(tenant.accountId)).toBe(0);
      expect(a.gateway.liveFeed.wanted(tenant.accountId)).toBe(false);
    }
    // Every subscription slot given back, those of refused and failed subscriptions included.
    expect(b.gateway.subscriptionSlots.keys).toBe(0);
  });
});

afterAll(async () => {
  if (b && b !== a) await b.close();
  await second?.close();
  await a?.close();
});

const urlOf = (t: TestGateway) => `ws://127.0.0.1:${(t.gateway.app.server.address() as AddressInfo).port}/graphql`;

interface Closed {
  code: number;
  reason: string;
}

/** A graphql-ws client of `t`, with what it was closed with (if it was). */
function connect(t: TestGateway, connectionParams: Record<string, unknown>) {
  const state: { closed?: Closed } = {};
  const client = createClient({
    url: urlOf(t),
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    on: { closed: (event) => (state.closed = { code: (event as Closed).code, reason: (event as Closed).reason }) },
  });
  clients.push(client);
  return { client, state };
}

const recordFields = 'id memberId activityId points content completedAt activity { name } member { id country }';

/** Subscribes `tenant` on `t` and waits until `t` has the subscription and `a` knows someone listens. */
async function subscribe(t: TestGateway, tenant: Tenant, filter?: Record<string, unknown>) {
  const before = t.gateway.liveFeed.subscriberCount(tenant.accountId);
  const { client } = connect(t, { 'x-api-key': tenant.apiKey });
  const events = client.iterate<{ activityRecorded: Record<string, any> }>({
    query: `subscription($filter: MemberFilter) { activityRecorded(filter: $filter) { ${recordFields} } }`,
    variables: { filter },
  });
  // The iterator subscribes on its first read; keep that read for the first event.
  const first = events.next();
  await vi.waitFor(() => {
    expect(t.gateway.liveFeed.subscriberCount(tenant.accountId)).toBe(before + 1);
    expect(a.gateway.liveFeed.wanted(tenant.accountId)).toBe(true);
  });
  let pending: typeof first | undefined = first;
  return {
    async next(): Promise<Record<string, any>> {
      const result = await (pending ?? events.next());
      pending = undefined;
      expect(result.done).toBe(false);
      expect(result.value.errors, JSON.stringify(result.value.errors)).toBeUndefined();
      return result.value.data!.activityRecorded;
    },
  };
}

const recordThroughRest = (tenant: Tenant, query: RestParams) => ok<{ RecordID: string | null; Queued: boolean }>(a.rest(tenant, 'POST', '/activity/record', query));

describe('activityRecorded', () => {
  it('delivers a record made through REST on one gateway to a subscriber on another', async () => {
    const subscriber = await subscribe(b, app);
    const made = await recordThroughRest(app, { activityid: spin, id: members[0], content: JSON.stringify({ text: 'live' }) });
    expect(await subscriber.next()).toEqual({
      id: made.RecordID,
      memberId: String(members[0]),
      activityId: String(spin),
      points: 2,
      content: { text: 'live' },
      completedAt: expect.any(String),
      activity: { name: 'Spin' },
      member: { id: String(members[0]), country: 'GB' },
    });
  });

  it('announces nothing while nobody subscribes to the account, and each stored batch once when someone does', async () => {
    const send = vi.spyOn(a.gateway.liveFeed, 'send');
    try {
      await recordThroughRest(app, { activityid: spin, id: members[0] });
      await record(a, app, [{ activityId: spin, memberId: members[1], completedAt: new Date().toISOString() }]);
      expect(send).not.toHaveBeenCalled();
      const subscriber = await subscribe(b, app);
      const made = await recordThroughRest(app, { activityid: spin, id: members[0] });
      expect((await subscriber.next()).id).toBe(made.RecordID);
      expect(send).toHaveBeenCalledTimes(1);
      expect(send).toHaveBeenCalledWith(app.accountId, [Number(made.RecordID)]);
    } finally {
      send.mockRestore();
    }
  });

  it("shows a subscriber only its own account's records", async () => {
    const [stranger] = await insertMembers(a, other, [{}]);
    const strangerSpin = await createActivity(a, other, { name: 'Their spin', type: 'Listened' });
    const mine = await subscribe(b, app);
    const theirs = await subscribe(b, other);
    const first = await recordThroughRest(app, { activityid: spin, id: members[1] });
    expect((await mine.next()).id).toBe(first.RecordID);
    // Delivered one announcement at a time: had the other account's subscriber been given the first
    // record, it would come before this one.
    const second = await recordThroughRest(other, { activityid: strangerSpin, id: stranger });
    expect((await theirs.next()).id).toBe(second.RecordID);
  });

  it("keeps to the subscriber's filter", async () => {
    const shares = await subscribe(b, app, { activityIds: [String(share)] });
    const british = await subscribe(b, app, { countries: ['GB'] });
    await recordThroughRest(app, { activityid: spin, id: members[1] });
    const usShare = await recordThroughRest(app, { activityid: share, id: members[1] });
    const gbSpin = await recordThroughRest(app, { activityid: spin, id: members[0] });
    expect(await shares.next()).toMatchObject({ id: usShare.RecordID, activity: { name: 'Share' } });
    expect(await british.next()).toMatchObject({ id: gbSpin.RecordID, member: { country: 'GB' } });
  });

  it('delivers every record of a batch, in order, and queued records once stored', async () => {
    const subscriber = await subscribe(b, app);
    const now = new Date().toISOString();
    const batch = await record(
      a,
      app,
      [0, 1, 2].map((index) => ({ activityId: spin, memberId: members[index % 2], completedAt: now })),
    );
    expect(batch.created).toBe(3);
    for (const id of batch.recordIds) expect((await subscriber.next()).id).toBe(id);
    const queued = await recordThroughRest(app, { activityid: share, id: members[0], async: 1 });
    expect(queued.Queued).toBe(true);
    await a.gateway.activityQueue.drain();
    expect(await subscriber.next()).toMatchObject({ activityId: String(share), memberId: String(members[0]) });
  });

  it('refuses a connection without a valid API key, with the reason', async () => {
    const unknown = connect(b, { apiKey: 'not-a-key' });
    await expect(unknown.client.iterate({ query: 'subscription { activityRecorded { id } }' }).next()).rejects.toBeDefined();
    expect(unknown.state.closed).toEqual({ code: 4403, reason: 'The API key is unknown or revoked.' });
    const missing = connect(b, {});
    await expect(missing.client.iterate({ query: 'subscription { activityRecorded { id } }' }).next()).rejects.toBeDefined();
    expect(missing.state.closed).toMatchObject({ code: 4401, reason: expect.stringContaining('API key is required') });
  });

  it("refuses at subscription what the feed query refuses: the global key, another account's brand", async () => {
    const { apiKey: globalKey } = await createGlobalKey(a.database.db, app.accountId);
    const firstResult = async (apiKey: string, filter?: Record<string, unknown>) => {
      const { client } = connect(b, { 'x-api-key': apiKey });
      const result = await client.iterate({ query: 'subscription($filter: MemberFilter) { activityRecorded(filter: $filter) { id } }', variables: { filter } }).next();
      return result.value as { errors?: { message: string; extensions: { aeCode: number; code: string } }[] };
    };
    expect((await firstResult(globalKey)).errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'WRONG_APPLICATION', aeCode: 7 }) })]);
    const theirBrand = await insertBrand(a, other, 'Theirs');
    expect((await firstResult(app.apiKey, { brandId: String(theirBrand) })).errors).toEqual([
      expect.objectContaining({ message: 'Brand not found.', extensions: expect.objectContaining({ code: 'NOT_FOUND', aeCode: 5 }) }),
    ]);
  });

  it('applies the limits to subscription documents and runs nothing but subscriptions', async () => {
    const { client } = connect(b, { 'x-api-key': app.apiKey });
    const errorsOf = async (query: string) => {
      const result = await client
        .iterate({ query })
        .next()
        .catch((errors: unknown) => ({ value: { errors } }));
      return (result.value as { errors: { message: string; extensions: { aeCode: number } }[] }).errors;
    };
    const aliases = Array.from({ length: 31 }, (_, index) => `a${index}: id`).join(' ');
    expect(await errorsOf(`subscription { activityRecorded { ${aliases} } }`)).toEqual([
      expect.objectContaining({ message: expect.stringContaining('Aliases limit of 30'), extensions: expect.objectContaining({ aeCode: 4 }) }),
    ]);
    const page = 'activities(first: 1000) { edges { node { id activity { id } member { id } } } }';
    const costly = ['p1', 'p2', 'p3', 'p4', 'p5'].map((alias) => `${alias}: ${page}`).join(' ');
    expect(await errorsOf(`subscription { activityRecorded { member { ${costly} } } }`)).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/costs \d+, above the limit/), extensions: expect.objectContaining({ aeCode: 4 }) }),
    ]);
    expect(await errorsOf('{ activities { id } }')).toEqual([
      expect.objectContaining({ message: expect.stringContaining('Only subscriptions run over WebSocket'), extensions: expect.objectContaining({ aeCode: 4 }) }),
    ]);
  });

  it('answers a subscription sent by HTTP POST with a clear error', async () => {
    const response = await b.graphql(app.apiKey, 'subscription { activityRecorded { id } }');
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      expect.objectContaining({ message: expect.stringContaining('Subscriptions run over WebSocket at /graphql'), extensions: expect.objectContaining({ aeCode: 4 }) }),
    ]);
  });
});

describe('NOTIFY payloads', () => {
  it('split a batch under PostgreSQL’s 8000-byte limit, keeping every id in order', () => {
    const ids = Array.from({ length: 1000 }, (_, index) => 9_007_199_254_000_000 + index);
    const payloads = recordPayloads(42, ids);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) {
      expect(Buffer.byteLength(payload)).toBeLessThan(8000);
      expect(payload).toMatch(/^42:\d+(,\d+)*$/);
    }
    expect(payloads.flatMap((payload) => payload.slice(3).split(',').map(Number))).toEqual(ids);
    expect(recordPayloads(42, [7])).toEqual(['42:7']);
  });
});
