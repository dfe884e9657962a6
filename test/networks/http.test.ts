import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { NetworkError } from '../../src/modules/networks/adapter.js';
import { at, callNetwork, count, endpoint, networkTimeoutMs, text } from '../../src/modules/networks/http.js';
import { displayName, type Network } from '../../src/modules/networks/networks.js';

/** A network as adapters pass it to calls. */
const named = (id: Network) => ({ id, name: displayName(id) });

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    const reply = (status: number, body: string) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(body);
    };
    if (request.url === '/slow') return; // never answers
    if (request.url === '/busy') return reply(429, JSON.stringify({ error: { status: 429, message: 'API rate limit exceeded' } }));
    if (request.url === '/list') return reply(200, '[1, 2]');
    if (request.url === '/teapot') return reply(418, JSON.stringify({ error: 'short and stout' }));
    if (request.url === '/echo') return reply(200, JSON.stringify({ method: request.method, accept: request.headers.accept, type: request.headers['content-type'] }));
    return reply(200, JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(NetworkError);
  return error as NetworkError;
}

describe('callNetwork', () => {
  it('returns the JSON object, asking for JSON and sending forms as forms', async () => {
    expect(await callNetwork(named('spotify'), `${base}/ok`)).toEqual({ ok: true });
    expect(await callNetwork(named('spotify'), `${base}/echo`, { method: 'POST', form: new URLSearchParams({ a: '1' }) })).toEqual({
      method: 'POST',
      accept: 'application/json',
      type: 'application/x-www-form-urlencoded',
    });
  });

  it(`gives up after ${networkTimeoutMs / 1000} s as unreachable`, async () => {
    const timeout = AbortSignal.timeout.bind(AbortSignal);
    const spy = vi.spyOn(AbortSignal, 'timeout').mockImplementation(() => timeout(50));
    const error = await failure(callNetwork(named('deezer'), `${base}/slow`));
    expect(spy).toHaveBeenCalledWith(5000);
    expect(error).toMatchObject({ network: 'deezer', reason: 'unreachable', message: 'Deezer could not be reached (no answer within 5 s).' });
  });

  it('reports rate limits, other statuses and non-objects as unreachable, in the network’s own words', async () => {
    expect(await failure(callNetwork(named('spotify'), `${base}/busy`))).toMatchObject({ reason: 'unreachable', message: 'Spotify answered HTTP 429: API rate limit exceeded.' });
    expect(await failure(callNetwork(named('spotify'), `${base}/teapot`))).toMatchObject({ reason: 'unreachable', message: 'Spotify answered HTTP 418: short and stout.' });
    expect(await failure(callNetwork(named('spotify'), `${base}/list`))).toMatchObject({ reason: 'unreachable' });
  });

  it('lets a classifier decide, even on HTTP 200', async () => {
    const error = await failure(callNetwork(named('deezer'), `${base}/ok`, { classify: (_status, body) => (at(body, 'ok') ? 'invalid_credentials' : undefined) }));
    expect(error).toMatchObject({ reason: 'invalid_credentials', message: 'Deezer refused the credentials (HTTP 200).' });
  });

  it('never puts the URL (and its token) in the message', async () => {
    const error = await failure(callNetwork(named('facebook'), 'http://127.0.0.1:1/me?access_token=very-secret'));
    expect(error.reason).toBe('unreachable');
    expect(error.message).not.toContain('very-secret');
  });
});

describe('JSON readers', () => {
  it('reads dotted paths, texts and counts', () => {
    const body = { items: [{ id: 7, snippet: { title: '' } }], n: '12', m: -1 };
    expect(at(body, 'items.0.id')).toBe(7);
    expect(at(body, 'items.1.id')).toBeUndefined();
    expect(at(undefined, 'a.b')).toBeUndefined();
    expect(text(7)).toBe('7');
    expect(text('')).toBeUndefined();
    expect(text(null)).toBeUndefined();
    expect(count(at(body, 'n'))).toBe(12);
    expect(count(at(body, 'm'))).toBeUndefined();
    expect(count('many')).toBeUndefined();
  });

  it('joins API roots and paths with or without a trailing slash', () => {
    expect(endpoint('https://api.example/v/', '/me?x=1').toString()).toBe('https://api.example/v/me?x=1');
    expect(endpoint('https://api.example', '/me').toString()).toBe('https://api.example/me');
  });
});
