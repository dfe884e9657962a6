import type { TestGateway } from './gateway.js';

/** A /graphql answer over the network: the status and the parsed body. */
export interface HttpGraphqlAnswer<T = any> {
  status: number;
  body: { data?: T | null; errors?: any[] };
}

export type HttpGraphql = <T = any>(apiKey: string, query: string, variables?: Record<string, unknown>) => Promise<HttpGraphqlAnswer<T>>;

/**
 * The test gateway listening on a port of its own, and a client that posts operations to its
 * /graphql as a browser or a server would (fetch over HTTP, the key in x-api-key). Closing the
 * gateway closes the port.
 */
export async function listenForGraphql(t: TestGateway): Promise<HttpGraphql> {
  const address = await t.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return async (apiKey, query, variables) => {
    const response = await fetch(`${address}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as HttpGraphqlAnswer['body'] };
  };
}
