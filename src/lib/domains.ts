import { invalidParameter, missingParameter } from '../core/errors.js';

/**
 * A whitelisted domain is a host name: callers may send a bare host or a whole URL, and both
 * `https://Fans.Example.com/page` and `fans.example.com` store `fans.example.com`.
 */
export function normaliseDomain(input: string): string {
  const trimmed = input.trim();
  if (!trimmed) throw missingParameter('domain');
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`).hostname;
  } catch {
    throw invalidParameter('domain', 'expected a host name such as fans.example.com, or a URL');
  }
  if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(host)) {
    throw invalidParameter('domain', 'expected a host name such as fans.example.com, or a URL');
  }
  return host;
}
