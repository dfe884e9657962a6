import { NetworkError, type NetworkAdapter } from '../adapter.js';
import { displayName, type RetiredNetwork } from '../networks.js';

/**
 * A network that closed its API. Its identities still sign in where the application vouches for
 * tokens (`trust`), but nothing can be verified or refreshed through it.
 */
export function retiredAdapter(network: RetiredNetwork): NetworkAdapter {
  const fail = () =>
    Promise.reject(new NetworkError(network, 'retired', `${displayName(network)} is a retired network: its tokens can no longer be verified or refreshed.`));
  return { network, verify: fail, refresh: fail };
}
