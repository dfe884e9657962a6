import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { asc, inArray } from 'drizzle-orm';
import pino from 'pino';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { activityRecords } from '../../src/db/schema/index.js';
import { ActivityQueue } from '../../src/modules/activities/activities.queue.js';
import { enqueueRecord } from '../../src/modules/activities/activities.queue.queries.js';
import { createGlobalKey } from '../../src/modules/tenancy/tenancy.service.js';
import { createActivity, insertMembers, record } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * What one tenant may hold of the gateway: a WebSocket subscriber that stops reading is closed once
 * its send buffer passes the limit (and nothing of it stays behind), subscriptions per key and per
 * connection are counted, heavy pages of one key wait for that key's slots while another key's are
 * answered, and the async queue takes accounts in turn.
 */
const limits = {
  WS_MAX_BUFFERED_BYTES: '65536',
  SUBSCRIPTIONS_PER_KEY: '3',
  SUBSCRIPTIONS_PER_CONNECTION: '2',
  WS_CONNECTIONS_PER_KEY: '3',
  // A page of 1000 members with three fields by GraphQL costs 5001; REST's default page 631.
  HEAVY_REQUEST_COST: '5000',
  HEAVY_REQUESTS_PER_KEY: '1',
  HEAVY_QUEUE_PER_KEY: '1',
  REQUESTS_PER_KEY: '4',
  REQUESTS_PER_ACCOUNT: '6',
  REQUEST_QUEUE_PER_KEY: '2',
  RATE_LIMIT_PER_MINUTE: '100000',
};

let t: TestGateway;
let app: Tenant;
let other: Tenant;
let spin: number;
let members: number[];
const sockets: WebSocket[] = [];

beforeAll(async () => {
  t = await startTestGateway(limits);
  await t.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  app = await t.tenant('advanced');
  other = await t.tenant('advanced');
  spin = await createActivity(t, app, { name: 'Spin', type: 'Listened', points: 2 });
  members = await insertMembers(t, app, [{ country: 'GB' }, { country: 'US' }]);
});

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
});

afterAll(async () => {
  await t?.close();
});

const keyOf = (tenant: Tenant) => `application:${tenant.applicationId}`;

type Message = { id?: string; type: string; payload?: any };

/** A raw graphql-ws connection (no client library between the test and the socket), acknowledged. */
async function connect(tenant: Tenant) {
  const port = (t.gateway.app.server.address() as AddressInfo).port;
  const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
  sockets.push(socket);
  const messages: Message[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  // A message arrives as one Buffer (ws's default binaryType).
  socket.on('message', (data) => messages.push(JSON.parse((data as Buffer).toString())));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': tenant.apiKey } }));
  await vi.waitFor(() => expect(messages.some((message) => message.type === 'connection_ack')).toBe(true));
  return {
    socket,
    messages,
    closed,
    subscribe(id: string, fields = 'id') {
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query: `subscription { activityRecorded { ${fields} } }` } }));
    },
    complete(id: string) {
      socket.send(JSON.stringify({ id, type: 'complete' }));
    },
    errorOf: (id: string) => messages.find((message) => message.id === id && message.type === 'error')?.payload,
  };
}

describe('a subscriber that stops reading', () => {
  it('is closed with 1013 once its send buffer passes the limit, and leaves nothing subscribed behind', async () => {
    const reader = await connect(app);
    reader.subscribe('1', 'id content');
    await vi.waitFor(() => expect(t.gateway.liveFeed.subscriberCount(app.accountId)).toBe(1));
    // The client stops reading: the kernel's buffers fill, then the gateway's.
    (reader.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const content = { text: 'x'.repeat(40_000) };
    const now = new Date().toISOString();
    for (let batch = 0; batch < 100 && t.gateway.liveFeed.subscriberCount(app.accountId) > 0; batch += 1) {
      await record(
        t,
        app,
        Array.from({ length: 20 }, (_, index) => ({ activityId: spin, memberId: members[index % 2], completedAt: now, content })),
      );
    }
    // Ended while the client still holds its connection open without reading.
    expect(t.gateway.liveFeed.subscriberCount(app.accountId)).toBe(0);
    expect(t.gateway.subscriptionSlots.heldBy(keyOf(app))).toBe(0);
    expect(t.gateway.subscriptionSlots.keys).toBe(0);
    expect(reader.socket.readyState).toBe(WebSocket.OPEN);
    // Reading again, the client gets what was buffered, then the close frame with its reason.
    (reader.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    const closed = await reader.closed;
    expect(closed.code).toBe(1013);
    expect(closed.reason).toContain('fell behind');
    // Its key may subscribe again at once.
    const again = await connect(app);
    again.subscribe('1');
    await vi.waitFor(() => expect(t.gateway.liveFeed.subscriberCount(app.accountId)).toBe(1));
    again.socket.close();
    await vi.waitFor(() => expect(t.gateway.liveFeed.subscriberCount(app.accountId)).toBe(0));
  });
});

describe('subscriptions per key and per connection', () => {
  it('refuses the subscription past either limit with code 6, and counts a completed one out', async () => {
    const first = await connect(app);
    first.subscribe('a');
    first.subscribe('b');
    first.subscribe('c');
    await vi.waitFor(() => expect(first.errorOf('c')).toBeDefined());
    expect(first.errorOf('c')[0]).toMatchObject({ extensions: { aeCode: 6, code: 'RATE_LIMITED' } });
    expect(first.errorOf('c')[0].message).toContain('2 subscriptions open at once');

    const second = await connect(app);
    second.subscribe('a');
    second.subscribe('b');
    await vi.waitFor(() => expect(second.errorOf('b')).toBeDefined());
    expect(second.errorOf('b')[0]).toMatchObject({ extensions: { aeCode: 6 } });
    expect(second.errorOf('b')[0].message).toContain('An API key may have 3 subscriptions');
    expect(second.errorOf('a')).toBeUndefined();
    await vi.waitFor(() => expect(t.gateway.liveFeed.subscriberCount(app.accountId)).toBe(3));

    // Another key is not affected.
    const theirs = await connect(other);
    theirs.subscribe('a');
    await vi.waitFor(() => expect(t.gateway.liveFeed.subscriberCount(other.accountId)).toBe(1));

    // A completed subscription gives its slot back.
    first.complete('a');
    await vi.waitFor(() => expect(t.gateway.subscriptionSlots.heldBy(keyOf(app))).toBe(2));
    second.subscribe('c');
    await vi.waitFor(() => expect(t.gateway.liveFeed.subscriberCount(app.accountId)).toBe(3));
    expect(second.errorOf('c')).toBeUndefined();

    // Closed connections keep nothing.
    for (const connection of [first, second, theirs]) connection.socket.close();
    await vi.waitFor(() => {
      expect(t.gateway.liveFeed.subscriberCount(app.accountId)).toBe(0);
      expect(t.gateway.liveFeed.subscriberCount(other.accountId)).toBe(0);
      expect(t.gateway.subscriptionSlots.keys).toBe(0);
    });
  });
});

/**
 * One key held 19,629 WebSocket connections of one gateway: each costs a socket, its buffers and
 * its keep-alive timers whether or not it subscribes. A key may have WS_CONNECTIONS_PER_KEY open;
 * the next is closed at connection_init with 4429 and a reason, and a closed one is counted out.
 */
describe('WebSocket connections per key', () => {
  it('closes the connection past the bound with 4429 at connection_init, and counts a closed one out', async () => {
    await vi.waitFor(() => expect(t.gateway.subscriptionSlots.connectionsOf(keyOf(app))).toBe(0));
    const open = [await connect(app), await connect(app), await connect(app)];
    expect(t.gateway.subscriptionSlots.connectionsOf(keyOf(app))).toBe(3);

    const port = (t.gateway.app.server.address() as AddressInfo).port;
    const extra = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
    sockets.push(extra);
    const received: string[] = [];
    extra.on('message', (data) => received.push(JSON.parse((data as Buffer).toString()).type));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => extra.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    await new Promise((resolve, reject) => extra.once('open', resolve).once('error', reject));
    extra.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': app.apiKey } }));
    const { code, reason } = await closed;
    expect(code).toBe(4429);
    expect(reason).toContain('3 WebSocket connections');
    expect(received).not.toContain('connection_ack');
    expect(t.gateway.subscriptionSlots.connectionsOf(keyOf(app))).toBe(3);

    // Another key is not affected.
    const theirs = await connect(other);
    theirs.subscribe('a');
    await vi.waitFor(() => expect(t.gateway.liveFeed.subscriberCount(other.accountId)).toBe(1));

    // A closed connection gives its place back.
    open[0].socket.close();
    await vi.waitFor(() => expect(t.gateway.subscriptionSlots.connectionsOf(keyOf(app))).toBe(2));
    await connect(app);
    expect(t.gateway.subscriptionSlots.connectionsOf(keyOf(app))).toBe(3);
  });
});

describe('heavy pages', () => {
  const memberOf = (tenant: Tenant) => ({ kind: 'member', accountId: tenant.accountId, applicationId: tenant.applicationId, memberId: 0, sessionGeneration: 0 }) as const;
  const largePage = '{ members(first: 1000) { edges { node { id email country } } } }';

  it("waits for the key's slots and refuses past its queue (429, code 6, Retry-After), while another key is answered", async () => {
    const heavy = t.gateway.heavyRequests;
    // The key's one heavy slot is busy.
    const release = await heavy.hold(memberOf(app));
    try {
      const waiting = t.rest(app, 'GET', '/members/all', { limit: 1000, extended: 1 });
      await vi.waitFor(() => expect(heavy.load(memberOf(app))).toEqual({ running: 1, waiting: 1 }));

      const refused = await t.rest(app, 'GET', '/members/all', { limit: 1000, extended: 1 });
      expect(refused.status).toBe(429);
      expect(refused.json.error).toMatchObject({ code: 6, type: 'RATE_LIMITED' });
      expect(refused.headers['retry-after']).toBe('1');
      const refusedGraphql = await t.graphql(app.apiKey, largePage);
      expect(refusedGraphql.status).toBe(429);
      expect(refusedGraphql.body.errors[0].extensions).toMatchObject({ aeCode: 6, code: 'RATE_LIMITED' });
      expect(refusedGraphql.headers['retry-after']).toBe('1');

      // Light calls of the same key, and heavy calls of another key, are answered meanwhile.
      expect((await t.rest(app, 'GET', '/members/all', {})).status).toBe(200);
      expect((await t.rest(other, 'GET', '/members/all', { limit: 1000, extended: 1 })).status).toBe(200);
      expect((await t.graphql(other.apiKey, largePage)).status).toBe(200);
      expect(heavy.load(memberOf(app))).toEqual({ running: 1, waiting: 1 });

      release();
      expect((await waiting).status).toBe(200);
    } finally {
      release();
    }
    expect(heavy.load(memberOf(app))).toEqual({ running: 0, waiting: 0 });
    expect(heavy.load(memberOf(other))).toEqual({ running: 0, waiting: 0 });
  });

  it('lets a waiting request go when its client leaves: its place in the queue is free again for a live one', async () => {
    const heavy = t.gateway.heavyRequests;
    const { port } = t.gateway.app.server.address() as AddressInfo;
    const waitingNow = (waiting: number) => vi.waitFor(() => expect(heavy.load(memberOf(app))).toEqual({ running: 1, waiting }), { timeout: 10_000 });
    const send = (method: 'GET' | 'POST', path: string, body?: string) => {
      const request = http.request({ host: '127.0.0.1', port, method, path, headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' } });
      request.on('error', () => {});
      request.end(body);
      return request;
    };
    const release = await heavy.hold(memberOf(app));
    try {
      // The queue holds one: each departed client's place is freed while the slot is still held.
      const rest = send('GET', '/v1.1/members/all?limit=1000&extended=1');
      await waitingNow(1);
      rest.destroy();
      await waitingNow(0);
      const graphql = send('POST', '/graphql', JSON.stringify({ query: largePage }));
      await waitingNow(1);
      graphql.destroy();
      await waitingNow(0);
      // A live caller takes the place, and is answered once the slot is free.
      const live = t.rest(app, 'GET', '/members/all', { limit: 1000, extended: 1 });
      await waitingNow(1);
      release();
      expect((await live).status).toBe(200);
    } finally {
      release();
    }
    expect(heavy.load(memberOf(app))).toEqual({ running: 0, waiting: 0 });
  });
});

describe('requests per key and per account', () => {
  const memberOf = (tenant: Tenant) => ({ kind: 'member', accountId: tenant.accountId, applicationId: tenant.applicationId, memberId: 0, sessionGeneration: 0 }) as const;
  const send = (tenant: Tenant, path: string) => {
    const { port } = t.gateway.app.server.address() as AddressInfo;
    const request = http.request({ host: '127.0.0.1', port, method: 'GET', path, headers: { 'x-api-key': tenant.apiKey } });
    request.on('error', () => {});
    request.end();
    return request;
  };

  it("waits for the key's slots whatever a request costs, refuses past its queue (429, code 6), and answers another tenant meanwhile", async () => {
    const slots = t.gateway.requestSlots;
    const releases = await Promise.all(Array.from({ length: 4 }, () => slots.hold(memberOf(app))));
    try {
      // Light pages, far under the heavy threshold, wait all the same: two places in the queue.
      const waiting = [t.rest(app, 'GET', '/members/all', {}), t.graphql(app.apiKey, '{ members(first: 2) { edges { node { id } } } }')];
      await vi.waitFor(() => expect(slots.load(memberOf(app))).toEqual({ running: 4, waiting: 2 }));

      const refused = await t.rest(app, 'GET', '/members/all', {});
      expect(refused.status).toBe(429);
      expect(refused.json.error).toMatchObject({ code: 6, type: 'RATE_LIMITED' });
      expect(refused.headers['retry-after']).toBe('1');
      const refusedGraphql = await t.graphql(app.apiKey, '{ members(first: 2) { edges { node { id } } } }');
      expect(refusedGraphql.status).toBe(429);
      expect(refusedGraphql.body.errors[0].extensions).toMatchObject({ aeCode: 6, code: 'RATE_LIMITED' });

      // Another tenant is answered while this key's requests wait.
      expect((await t.rest(other, 'GET', '/members/all', { limit: 100, extended: 1 })).status).toBe(200);
      expect((await t.graphql(other.apiKey, '{ members(first: 2) { edges { node { id } } } }')).status).toBe(200);
      expect(slots.load(memberOf(app))).toEqual({ running: 4, waiting: 2 });

      releases.forEach((release) => release());
      const answered = await Promise.all(waiting);
      expect(answered.map((response) => response.status)).toEqual([200, 200]);
    } finally {
      releases.forEach((release) => release());
    }
    await vi.waitFor(() => expect(slots.load(memberOf(app))).toEqual({ running: 0, waiting: 0 }));
    expect(slots.load(memberOf(other))).toEqual({ running: 0, waiting: 0 });
  });

  it('lets a waiting request go when its client leaves, and holds a slot until the answer is sent', async () => {
    const slots = t.gateway.requestSlots;
    const releases = await Promise.all(Array.from({ length: 4 }, () => slots.hold(memberOf(app))));
    try {
      const gone = send(app, '/v1.1/members/all');
      await vi.waitFor(() => expect(slots.load(memberOf(app))).toEqual({ running: 4, waiting: 1 }));
      gone.destroy();
      await vi.waitFor(() => expect(slots.load(memberOf(app))).toEqual({ running: 4, waiting: 0 }));
    } finally {
      releases.forEach((release) => release());
    }
    // An answered request gives its slot back.
    expect((await t.rest(app, 'GET', '/members/all', {})).status).toBe(200);
    await vi.waitFor(() => expect(slots.load(memberOf(app))).toEqual({ running: 0, waiting: 0 }));
  });

  it("bounds an account's keys together: past the account's slots, another of its keys waits", async () => {
    const slots = t.gateway.requestSlots;
    const global = await createGlobalKey(t.database.db, app.accountId);
    const accountCaller = { kind: 'account', accountId: app.accountId, keyId: global.keyId } as const;
    // Four of the account's six through its global key, two through the application's key.
    const releases = await Promise.all([...Array.from({ length: 4 }, () => slots.hold(accountCaller)), slots.hold(memberOf(app)), slots.hold(memberOf(app))]);
    try {
      expect(slots.accountLoad(app.accountId)).toEqual({ running: 6, waiting: 0 });
      // The application's key has slots of its own left, but the account has none.
      const waiting = t.rest(app, 'GET', '/members/all', {});
      await vi.waitFor(() => expect(slots.accountLoad(app.accountId)).toEqual({ running: 6, waiting: 1 }));
      expect(slots.load(memberOf(app))).toEqual({ running: 3, waiting: 0 });
      expect((await t.rest(other, 'GET', '/members/all', {})).status).toBe(200);
      releases[0]();
      expect((await waiting).status).toBe(200);
    } finally {
      releases.forEach((release) => release());
    }
    await vi.waitFor(() => expect(slots.accountLoad(app.accountId)).toEqual({ running: 0, waiting: 0 }));
  });
});

describe('the async queue', () => {
  it('takes accounts in turn: one account with many queued records does not hold back another', async () => {
    const theirActivity = await createActivity(t, other, { name: 'Spin', type: 'Listened', points: 2 });
    const [theirMember] = await insertMembers(t, other, [{ country: 'FR' }]);
    // Only the queue made here works on the rows below.
    await t.gateway.activityQueue.stop();
    const completedAt = new Date().toISOString();
    for (let index = 0; index < 12; index += 1) {
      await enqueueRecord(t.database.db, { accountId: app.accountId, applicationId: app.applicationId, payload: { activityId: String(spin), memberId: String(members[index % 2]), completedAt } });
    }
    for (let index = 0; index < 3; index += 1) {
      await enqueueRecord(t.database.db, { accountId: other.accountId, applicationId: other.applicationId, payload: { activityId: String(theirActivity), memberId: String(theirMember), completedAt } });
    }
    const queue = new ActivityQueue(t.database.db, pino({ level: 'silent' }));
    expect(await queue.drain()).toBe(15);
    await queue.stop();
    const stored = await t.database.db
      .select({ accountId: activityRecords.accountId })
      .from(activityRecords)
      .where(inArray(activityRecords.accountId, [app.accountId, other.accountId]))
      .orderBy(asc(activityRecords.id));
    const order = stored.slice(-15).map((row) => (row.accountId === app.accountId ? 'A' : 'B'));
    // Taken in turn while both have records queued, then the rest of the first.
    expect(order.join('')).toBe('ABABAB' + 'A'.repeat(9));
  });
});
