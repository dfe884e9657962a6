import { NetworkError } from './adapter.js';
import type { Network } from './networks.js';

const timeoutMs = 5000;

/**
 * One JSON call to a network: refusals (401, 403, and 400 on token endpoints) mean the credentials
 * are bad; anything else that fails means the network could not be reached.
 */
export async function callNetwork(network: Network, url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json', ...init.headers } });
  } catch (error) {
    throw new NetworkError(network, 'unreachable', `${network} could not be reached: ${(error as Error).message}`);
  }
  if ([400, 401, 403].includes(response.status)) {
    throw new NetworkError(network, 'invalid_credentials', `${network} refused the credentials (HTTP ${response.status}).`);
  }
  if (!response.ok) throw new NetworkError(network, 'unreachable', `${network} answered HTTP ${response.status}.`);
  try {
    return (await response.json()) as Record<string, unknown>;
  } catch {
    throw new NetworkError(network, 'unreachable', `${network} answered something that is not JSON.`);
  }
}

/** Reads a dotted path (`data.id`, `items.0.snippet.customUrl`) out of a JSON body. */
export function at(body: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), body);
}
