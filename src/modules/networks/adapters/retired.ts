import { NetworkError, type NetworkAdapter } from '../adapter.js';
import type { NamedNetwork } from '../declaration.js';

/**
 * A network that closed its API. Its identities still sign in where the application vouches for
 * tokens (`trust`), but nothing can be verified or refreshed through it.
 */
export function retiredAdapter(network: NamedNetwork): NetworkAdapter {
  const fail = () => Promise.reject(new NetworkError(network.id, 'retired', `${network.name} is a retired network: its tokens can no longer be verified or refreshed.`));
  return { network: network.id, verify: fail, refresh: fail };
}
