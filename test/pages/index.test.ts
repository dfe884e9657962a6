import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import type { DatabaseHandle } from '../../src/db/client.js';

/** `GET /`: an index of the gateway's pages and documents, as HTML or JSON; `/favicon.ico` from the repository. */
let database: DatabaseHandle;
let t: TestGateway;
let production: TestGateway;

beforeAll(async () => {
  database = await createTestDatabase();
  t = await startTestGateway({}, database);
  production = await startTestGateway({ NODE_ENV: 'production' }, database);
});

afterAll(async () => {
  await t?.close();
  await production?.close();
  await database?.close();
});

describe('the index at /', () => {
  it('is an HTML page linking the explorer, the REST reference, the dashboard, the OpenAPI document and the probes', async () => {
    const response = await t.request({ url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    for (const url of ['/graphql', '/v1.1/docs', '/v1.1/openapi.json', '/dashboard', '/healthz', '/readyz']) {
      expect(response.body).toContain(`href="${url}"`);
    }
    expect(response.body).toContain('GraphQL explorer');
    // Nothing from elsewhere.
    expect(response.body).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('answers JSON to a client that asks for it, every link reachable', async () => {
    const response = await t.request({ url: '/', headers: { accept: 'application/json' } });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ name: string; links: { name: string; url: string }[] }>();
    expect(body.name).toBe('Marquee');
    expect(body.links.map((link) => link.url)).toEqual(['/graphql', '/v1.1/docs', '/v1.1/openapi.json', '/dashboard', '/healthz', '/readyz']);
    for (const link of body.links) {
      const answer = await t.request({ url: link.url, headers: { accept: 'text/html' } });
      expect(answer.statusCode, link.url).toBe(200);
    }
  });

  it('is HTML for a client that names no type, and leaves the explorer out in production', async () => {
    expect((await t.request({ url: '/' })).headers['content-type']).toMatch(/^text\/html/);
    const response = await production.request({ url: '/', headers: { accept: 'application/json' } });
    expect(response.json().links[0]).toMatchObject({ name: 'GraphQL', url: '/graphql' });
    expect((await production.request({ url: '/' })).body).not.toContain('explorer');
  });
});

describe('/favicon.ico', () => {
  it('is the SVG icon kept in the repository, cacheable', async () => {
    const response = await t.request({ url: '/favicon.ico' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(response.headers['cache-control']).toContain('max-age=');
    expect(response.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect((await production.request({ url: '/favicon.ico' })).statusCode).toBe(200);
  });
});
