import type { TestGateway, Tenant } from '../support/gateway.js';

/** A browser's cookie jar for injected requests: enough for the hosted flow's cookies. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  absorb(response: { cookies: { name: string; value: string; maxAge?: number; expires?: Date }[] }): void {
    for (const cookie of response.cookies) {
      const cleared = cookie.value === '' || cookie.maxAge === 0 || (cookie.expires && cookie.expires.getTime() < Date.now());
      if (cleared) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }
}

export async function whitelist(t: TestGateway, tenant: Tenant, domain: string): Promise<void> {
  const response = await t.request({ method: 'POST', url: '/v1.1/app/whitelist', headers: { 'x-api-key': tenant.apiKey }, payload: { domain } });
  if (response.statusCode !== 200) throw new Error(response.body);
}

export function csrfTokenOf(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1];
}

/** Drives a hosted form the way a browser does: load it (cookies kept), post it with its token. */
export async function submitForm(t: TestGateway, jar: CookieJar, pageUrl: string, fields: Record<string, string>) {
  const page = await t.request({ url: pageUrl, headers: { cookie: jar.header() } });
  jar.absorb(page);
  if (page.statusCode !== 200) return page;
  const action = /<form method="post" action="([^"]+)"/.exec(page.body)![1].replace(/&amp;/g, '&');
  // A page opened without a return URL has none to post back.
  const returnUrl = /name="return" value="([^"]+)"/.exec(page.body)?.[1].replace(/&amp;/g, '&');
  const response = await t.request({
    method: 'POST',
    url: new URL(action).pathname,
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrfTokenOf(page.body), ...(returnUrl === undefined ? {} : { return: returnUrl }), ...fields }).toString(),
  });
  jar.absorb(response);
  return response;
}

export function tokenOf(location: string | undefined): string {
  const token = new URL(location ?? '').searchParams.get('accesstoken');
  if (!token) throw new Error(`no token in ${location}`);
  return token;
}
