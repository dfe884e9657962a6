import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../src/db/schema/index.js';
import { insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { holdMemberRow, lockWaits } from '../support/lock-waits.js';

/**
 * The gateway answers every request within RESPONSE_TIMEOUT_MS (http/response-deadline.ts), however
 * long what it waits for takes: here a network that never answers (the deadline shorter than the
 * network calls' own 5 s) and, on PostgreSQL, a row another session holds with no statement timeout.
 * The client gets RESPONSE_TIMEOUT (the request id in its `x-request-id` header, and in GraphQL's
 * extensions), the log says which route, and the request writes nothing afterwards.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const deadlineMs = 400;

let t: TestGateway;
let tenant: Tenant;
let silentNetwork: http.Server;
const logged: Record<string, unknown>[] = [];

beforeAll(async () => {
  // Takes the connection and never answers.
  silentNetwork = http.createServer(() => {});
  await new Promise<void>((resolve) => silentNetwork.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(silentNetwork.address() as AddressInfo).port}`;
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logged.push(JSON.parse(String(chunk)));
      done();
    },
  });
  t = await startTestGateway({ RESPONSE_TIMEOUT_MS: String(deadlineMs), STATEMENT_TIMEOUT_MS: '0' }, undefined, {
    networks: { baseUrls: { spotify: `${base}/spotify` }, tokenUrls: { spotify: `${base}/spotify/token` } },
    logSink: sink,
  });
  tenant = await t.tenant('advanced');
  const switched = await t.graphql(tenant.apiKey, 'mutation { setNetworkVerification(mode: VERIFY) { networkVerification } }');
  expect(switched.body.errors).toBeUndefined();
});
afterAll(async () => {
  silentNetwork?.closeAllConnections();
  silentNetwork?.close();
  await t?.close();
});

/** How long a condition that follows the deadline's answer may take to hold (vitest's expect.poll). */
const settles = { timeout: 5_000, interval: 25 };

/** Fastify's line for the request's own answer, made after the deadline's and dropped: the request has ended. */
const lateAnswerLogged = (requestId: string) => logged.some((entry) => entry.reqId === requestId && /reply\.sent = true|already sent/i.test(String(entry.msg)));

const membersOf = async (accountId: number) => (await t.database.db.select({ id: members.id }).from(members).where(eq(members.accountId, accountId))).length;

describe('a request the gateway cannot finish in time', () => {
  it('answers RESPONSE_TIMEOUT (503, code 20) with the request id at the deadline, logs the route, and writes nothing after it', async () => {
    const started = performance.now();
    const answer = await t.rest(tenant, 'POST', '/member/register', { service: 'spotify', authtoken: 'slow-network', uid: 'sp-deadline' }, { headers: { 'x-request-id': 'deadline-rest-1' } });
    const tookMs = performance.now() - started;
    expect(answer.status, answer.body).toBe(503);
    expect(answer.json).toEqual({
      error: { code: 20, type: 'RESPONSE_TIMEOUT', message: `The gateway did not finish this request within ${deadlineMs} ms and stopped it: retry later.`, param: null },
    });
    expect(answer.headers['x-request-id']).toBe('deadline-rest-1');
    // At the deadline, not at the network call's own 5 s.
    expect(tookMs).toBeLessThan(4_000);
    const line = logged.find((entry) => entry.reqId === 'deadline-rest-1' && String(entry.msg).includes('RESPONSE_TIMEOUT'));
    expect(line).toMatchObject({ level: 50, route: '/v1.1/member/register', method: 'POST' });

    // The network gives up; the request's own answer comes too late and is dropped, and the member is not registered.
    silentNetwork.closeAllConnections();
    await expect.poll(() => lateAnswerLogged('deadline-rest-1'), settles).toBe(true);
    expect(await membersOf(tenant.accountId)).toBe(0);
  });

  it('answers GraphQL in its own shape: HTTP 503, extensions RESPONSE_TIMEOUT with the request id', async () => {
    const answer = await t.graphql(
      tenant.apiKey,
      'mutation($input: RegisterMemberInput!) { registerMember(input: $input) { created } }',
      { input: { credentials: { network: 'spotify', uid: 'sp-deadline-2', authToken: 'slow-network' } } },
      { headers: { 'x-request-id': 'deadline-graphql-1' } },
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
    expect(answer.body).toEqual({
      errors: [
        { message: `The gateway did not finish this request within ${deadlineMs} ms and stopped it: retry later.`, extensions: { code: 'RESPONSE_TIMEOUT', aeCode: 20, requestId: 'deadline-graphql-1' } },
      ],
    });
    silentNetwork.closeAllConnections();
    await expect.poll(() => lateAnswerLogged('deadline-graphql-1'), settles).toBe(true);
    expect(await membersOf(tenant.accountId)).toBe(0);
  });

  it('leaves requests answered in time alone', async () => {
    const listed = await t.rest(tenant, 'GET', '/members/active');
    expect(listed.status, listed.body).toBe(200);
    expect(logged.filter((entry) => String(entry.msg).includes('RESPONSE_TIMEOUT'))).toHaveLength(2);
  });

  it.runIf(onPostgres)('stops the statement a request waits on: it is cancelled and its change never lands', async () => {
    const [memberId] = await insertMembers(t, tenant, [{ email: 'held@example.com' }]);
    const db = postgres(t.database.url!, { max: 2, onnotice: () => {} });
    try {
      const held = await holdMemberRow(db, tenant.accountId, memberId);
      // No statement timeout on this gateway: without the deadline the update would wait for the lock.
      const answer = await t.rest(tenant, 'POST', `/member/${memberId}/update`, { firstname: 'Late' });
      expect(answer.status, answer.body).toBe(503);
      expect(answer.json.error).toMatchObject({ code: 20, type: 'RESPONSE_TIMEOUT' });
      // The update no longer waits on the lock (on a Citus cluster, on the worker that holds the row).
      await expect.poll(() => lockWaits(t.database.db), settles).toBe(0);
      await held.release();
      const [row] = await db<{ first_name: string | null }[]>`select first_name from members where id = ${memberId}`;
      expect(row.first_name).not.toBe('Late');
    } finally {
      await db.end();
    }
  });
});
