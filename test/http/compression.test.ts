import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePagesBuilt } from '../pages/browser.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { whitelist } from '../widget/support.js';

/** Answers above 1 KB compressed for clients that ask (brotli first, else gzip); small ones and the widget's not. */
let t: TestGateway;
let tenant: Tenant;

function get(url: string, acceptEncoding?: string, headers: Record<string, string> = {}) {
  return t.request({ method: 'GET', url, headers: { ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}), ...headers } });
}

describe('response compression', () => {
  beforeAll(async () => {
    await ensurePagesBuilt();
    t = await startTestGateway();
    tenant = await t.tenant();
  });
  afterAll(async () => t?.close());

  it('sends the explorer bundle brotli-compressed when asked, gzip for a gzip-only client, plain otherwise', async () => {
    const plain = await get('/assets/explorer.js');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(500_000);

    const brotli = await get('/assets/explorer.js', 'gzip, deflate, br');
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(String(brotli.headers.vary)).toMatch(/accept-encoding/i);
    expect(brotli.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(zlib.brotliDecompressSync(brotli.rawPayload).equals(plain.rawPayload)).toBe(true);

    const gzip = await get('/assets/explorer.js', 'br;q=0, gzip;q=0.8');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.rawPayload).equals(plain.rawPayload)).toBe(true);
    // Compressed once: the next load is the same bytes.
    expect((await get('/assets/explorer.js', 'br')).rawPayload.equals(brotli.rawPayload)).toBe(true);
    expect((await get('/assets/explorer.js', 'identity')).headers['content-encoding']).toBeUndefined();
    // Revalidation still answers 304 with nothing to compress.
    const revalidated = await get('/assets/explorer.js', 'br', { 'if-none-match': String(plain.headers.etag) });
    expect(revalidated.statusCode).toBe(304);
  });

  it('compresses the OpenAPI document and a large GraphQL answer', async () => {
    const openapi = await get('/v1.1/openapi.json', 'gzip');
    expect(openapi.headers['content-encoding']).toBe('gzip');
    const document = JSON.parse(zlib.gunzipSync(openapi.rawPayload).toString('utf8'));
    expect(document.openapi).toMatch(/^3\./);

    const introspection = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', 'accept-encoding': 'br', 'x-api-key': tenant.apiKey },
      payload: { query: '{ __schema { types { name fields { name } } } }' },
    });
    expect(introspection.statusCode).toBe(200);
    expect(introspection.headers['content-encoding']).toBe('br');
    expect(JSON.parse(zlib.brotliDecompressSync(introspection.rawPayload).toString('utf8')).data.__schema.types.length).toBeGreaterThan(10);
  });

  it('sends small answers as they are', async () => {
    for (const url of ['/healthz', '/v1.1/app/info']) {
      const small = await get(url, 'gzip, br', { 'x-api-key': tenant.apiKey });
      expect(small.statusCode, small.body).toBe(200);
      expect(small.rawPayload.length, url).toBeLessThan(1024);
      expect(small.headers['content-encoding'], url).toBeUndefined();
      JSON.parse(small.body);
    }
  });

  it("never compresses the widget's answers, which carry tokens or profiles beside what the page sent", async () => {
    await whitelist(t, tenant, 'fans.example.com');
    const script = await get(`/framework/js/${tenant.applicationId}`, 'gzip, br', { referer: 'https://fans.example.com/page' });
    expect(script.statusCode, script.body).toBe(200);
    expect(script.rawPayload.length).toBeGreaterThan(1024);
    expect(script.headers['content-encoding']).toBeUndefined();
  });

  it('reads a request body as sent: a Content-Encoding is not undone', async () => {
    const body = zlib.gzipSync(JSON.stringify({ query: '{ application { name } }' }));
    const answer = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-api-key': tenant.apiKey },
      payload: body,
    });
    expect(answer.statusCode).toBe(400);
  });
});
