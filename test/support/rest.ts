import type { TestGateway, Tenant } from './gateway.js';

export type RestParams = Record<string, string | number | boolean | null | undefined>;

/** A /v1.1 answer: the status, the parsed JSON (undefined when the body is not JSON) and the body as sent. */
export interface RestAnswer<T = any> {
  status: number;
  json: T;
  body: string;
}

/**
 * Calls a /v1.1 route through the test gateway as an application would: the tenant's key and every
 * parameter in the query string (null and undefined left out), `path` under /v1.1 unless it names
 * another prefix. Without a tenant the request carries no key.
 */
export async function rest<T = any>(
  t: Pick<TestGateway, 'request'>,
  tenant: Tenant | null,
  method: 'GET' | 'POST',
  path: string,
  params: RestParams = {},
): Promise<RestAnswer<T>> {
  const search = new URLSearchParams(tenant ? { apiKey: tenant.apiKey } : {});
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) search.append(name, String(value));
  }
  const url = `${path.startsWith('/v1.1/') ? path : `/v1.1${path}`}?${search}`;
  const response = await t.request({ method, url });
  let json: T;
  try {
    json = response.json<T>();
  } catch {
    json = undefined as T;
  }
  return { status: response.statusCode, json, body: response.body };
}
