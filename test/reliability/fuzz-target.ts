import type { AddressInfo } from 'node:net';
import { startFakeNetworks } from '../support/fake-networks.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { fillSide } from './world.js';

/**
 * The gateway the fuzzer calls: listening on a free port, networks faked (nothing leaves the
 * machine), callers on every plan, the enterprise one with something of each kind so small ids
 * name things. The proxy header is trusted so each request can come from its own address.
 */
export async function startFuzzTarget(): Promise<{ t: TestGateway; base: string; keys: string[]; close(): Promise<void> }> {
  const fake = await startFakeNetworks();
  const t = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '100000000', TRUST_PROXY: 'true' }, undefined, { networks: { baseUrls: fake.baseUrls, tokenUrls: fake.tokenUrls } });
  const enterprise = await t.tenant('enterprise');
  await fillSide(t, enterprise, 'fuzz');
  const keys = [enterprise.apiKey, (await t.tenant('advanced')).apiKey, (await t.tenant('basic')).apiKey];
  await t.gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(t.gateway.app.server.address() as AddressInfo).port}`;
  return {
    t,
    base,
    keys,
    async close() {
      await t.close();
      await fake.close();
    },
  };
}
