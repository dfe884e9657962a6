import type { AddressInfo } from 'node:net';
import { ApolloClient, HttpLink } from '@apollo/client';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { frontEndCache } from './cache.js';

/** A gateway listening on a port of its own, as a front end reaches it, and an account with a key. */
export interface ClientGateway {
  t: TestGateway;
  tenant: Tenant;
  url: string;
  /** A client with the application's key (a label's server), or a member's JWT (the fan's own page). */
  client(credentials?: { apiKey?: string; jwt?: string }): ApolloClient;
  /** Every HTTP status the gateway answered the clients with, in order. */
  statuses: number[];
  close(): Promise<void>;
}

export async function startClientGateway(): Promise<ClientGateway> {
  const t = await startTestGateway();
  await t.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.gateway.app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/graphql`;
  const tenant = await t.tenant('enterprise');
  const statuses: number[] = [];
  const countingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
  return {
    t,
    tenant,
    url,
    statuses,
    client(credentials = { apiKey: tenant.apiKey }) {
      const headers: Record<string, string> = {};
      if (credentials.apiKey) headers['x-api-key'] = credentials.apiKey;
      if (credentials.jwt) headers.authorization = `Bearer ${credentials.jwt}`;
      return new ApolloClient({ cache: frontEndCache(), link: new HttpLink({ uri: url, headers, fetch: countingFetch }) });
    },
    close: () => t.close(),
  };
}
