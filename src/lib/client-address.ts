import type { IncomingMessage } from 'node:http';
import proxyaddr from '@fastify/proxy-addr';
import type { TrustedProxies } from '../config.js';

/** Whether the address at `hop` (0: the connection's peer, then X-Forwarded-For from the right) is a trusted proxy. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * The trust rule of TRUST_PROXY, for Fastify's `trustProxy` (request.ip) and for the WebSocket
 * upgrade requests Fastify never sees, so both read the same client address. A hop count is given
 * as a function: Fastify refuses to trust any hop for a plain number.
 */
export function proxyTrust(trusted: TrustedProxies): ProxyTrust | false {
  if (!trusted) return false;
  if ('hops' in trusted) {
    const { hops } = trusted;
    return (_address, hop) => hop < hops;
  }
  return proxyaddr.compile(trusted.addresses);
}

/**
 * The client's address: the nearest address, walking X-Forwarded-For from the right, that is not a
 * trusted proxy. The leftmost entry, which the client writes itself, is only reached when every
 * hop before it is trusted.
 */
export function clientAddressOf(request: IncomingMessage, trust: ProxyTrust | false): string {
  const peer = request.socket.remoteAddress ?? 'unknown';
  return trust ? (proxyaddr(request, trust) ?? peer) : peer;
}
