import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, hasChromium, listen } from '../pages/browser.js';
import { insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { whitelist } from '../widget/support.js';

/**
 * In Debian's Chromium: a front end on another origin queries `viewer` with a member's JWT (the
 * browser's own preflight, then the POST), and a page on an origin the application does not
 * whitelist cannot read the answer. The gateway listens on 127.0.0.1, the pages on `localhost`
 * (whitelisted) and `evil.localhost` (not) at another port: three origins, one machine.
 */
let t: TestGateway;
let tenant: Tenant;
let browser: Browser;
let site: http.Server;
let gatewayBase: string;
let sitePort: number;
let jwt: string;

async function queryFrom(origin: string) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/front-end`);
    return await page.evaluate(
      async ({ url, token }) => {
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ viewer { id } }' }),
          });
          return { status: response.status, body: await response.json(), requestId: response.headers.get('x-request-id') };
        } catch (error) {
          return { failed: String(error) };
        }
      },
      { url: `${gatewayBase}/graphql`, token: jwt },
    );
  } finally {
    await page.close();
  }
}

describe.skipIf(!hasChromium)('CORS in a browser', () => {
  beforeAll(async () => {
    t = await startTestGateway();
    tenant = await t.tenant();
    await whitelist(t, tenant, 'localhost');
    const [memberId] = await insertMembers(t, tenant, [{}]);
    jwt = (await t.rest(tenant, 'GET', `/member/${memberId}`)).json.jwt;
    gatewayBase = await listen(t);
    site = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Front end</title>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    sitePort = (site.address() as AddressInfo).port;
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--host-resolver-rules=MAP localhost 127.0.0.1, MAP *.localhost 127.0.0.1'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
    await t?.close();
  });

  it("lets a whitelisted origin's front end query viewer with a member's JWT", async () => {
    const answer = await queryFrom(`http://localhost:${sitePort}`);
    expect(answer, JSON.stringify(answer)).toMatchObject({ status: 200, body: { data: { viewer: { id: expect.any(String) } } } });
    // Exposed to the page, so a front end can quote it when reporting a problem.
    expect(answer.requestId).toBeTruthy();
  });

  it('keeps the answer from a page on an origin the application does not whitelist', async () => {
    const answer = await queryFrom(`http://evil.localhost:${sitePort}`);
    expect(answer).toMatchObject({ failed: expect.stringContaining('Failed to fetch') });
  });
});
