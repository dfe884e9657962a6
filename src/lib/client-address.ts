import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
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

/** The prefix IPv6 budgets count by, unless IPV6_PREFIX_LENGTH says otherwise: a /64 is what one subscriber is given. */
export const defaultIpv6PrefixLength = 64;

/**
 * The key of a client address's budgets (sign-in failures, emails, calls, unknown keys): an IPv4
 * address as it is; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as its IPv4 address; any other
 * IPv6 address masked to its first `prefixLength` bits (`2001:db8:1:2:0:0:0:0/64`). One subscriber
 * holds a whole /64 and picks any address in it, so counted by full address each of its 2^64
 * addresses would open a fresh budget. Anything else (not an address, or a key already) as it is.
 */
export function budgetAddress(address: string, prefixLength = defaultIpv6PrefixLength): string {
  if (address.includes('/')) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  const masked = groups.map((group, index) => {
    const bits = Math.min(16, Math.max(0, prefixLength - 16 * index));
    return group & ((0xffff << (16 - bits)) & 0xffff);
  });
  return `${masked.map((group) => group.toString(16)).join(':')}/${prefixLength}`;
}

/** The eight 16-bit groups of an IPv6 address (a zone `%eth0` ignored, a dotted IPv4 tail read); undefined for anything else. */
function ipv6Groups(text: string): number[] | undefined {
  const address = text.split('%', 1)[0];
  if (!isIPv6(address)) return undefined;
  let parts = address.toLowerCase().split(':');
  const tail = parts[parts.length - 1];
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number);
    parts = [...parts.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  }
  const gap = parts.indexOf('');
  if (gap >= 0) {
    // `::` (at the start, the end, or alone) stands for as many zero groups as are missing.
    const before = parts.slice(0, gap).filter(Boolean);
    const after = parts.slice(gap + 1).filter(Boolean);
    parts = [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  }
  return parts.length === 8 ? parts.map((part) => parseInt(part, 16)) : undefined;
}
