import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../core/errors.js';

type HostPolicy = Pick<Config, 'env' | 'publicUrl' | 'allowedHosts'>;

/**
 * The gateway's address as callers reach it: PUBLIC_URL; without it, the request's own scheme and
 * host when that host is allowed. Anyone can send any Host header, and the hosted pages, the
 * widget script and the OAuth redirect URI are built from this address, so a host nobody allowed
 * must not name them: ALLOWED_HOSTS lists the hosts when set, and in production, without either
 * setting, no host is allowed. Undefined when the host is not allowed.
 */
export function baseUrlOf(config: HostPolicy, request: Pick<FastifyRequest, 'protocol' | 'host'>): string | undefined {
  if (config.publicUrl) return config.publicUrl;
  const host = allowedHost(config, request.host);
  return host === undefined ? undefined : `${request.protocol}://${host}`;
}

/** The base URL for a hosted page or the widget script: refused with code 4 for a host that is not allowed. */
export function hostedBaseUrl(config: HostPolicy, request: Pick<FastifyRequest, 'protocol' | 'host'>): string {
  const base = baseUrlOf(config, request);
  if (base === undefined) {
    throw new AppError('INVALID_PARAMETER', 'The Host header names no host this gateway serves its pages on (PUBLIC_URL or ALLOWED_HOSTS).', 'host');
  }
  return base;
}

/** A Host header: a name or a bracketed IPv6 address, and a port; nothing else (no user, path or query smuggled in). */
const hostHeader = /^(\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?$/i;

/** The Host header as the URLs will name it (lower case), when it is allowed; undefined when not. */
function allowedHost(config: HostPolicy, host: string): string | undefined {
  if (!config.allowedHosts) return config.env === 'production' ? undefined : host;
  const match = hostHeader.exec(host);
  if (!match) return undefined;
  const [name, port] = [match[1].toLowerCase(), match[2]];
  // An entry without a port allows the host on any port; `*.example.com` allows its subdomains, not itself.
  const allowed = config.allowedHosts.some((entry) => {
    const [entryName, entryPort] = entry.split(/:(?=\d+$)/);
    if (entryPort !== undefined && entryPort !== port) return false;
    return entryName.startsWith('*.') ? name.endsWith(entryName.slice(1)) : name === entryName;
  });
  return allowed ? (port === undefined ? name : `${name}:${port}`) : undefined;
}

/** Every public URL of an application's widget and hosted flow, from the gateway's base URL. */
export function widgetUrls(baseUrl: string, applicationId: number) {
  const flow = `${baseUrl}/framework/flow/${applicationId}`;
  return {
    script: `${baseUrl}/framework/js/${applicationId}`,
    session: `${baseUrl}/framework/session/${applicationId}`,
    login: `${flow}/login`,
    register: `${flow}/register`,
    registerEmbedded: `${flow}/register/embedded`,
    complete: `${flow}/complete`,
    /** Where a sign-in without a return URL ends: a page saying the fan is signed in. */
    signedIn: `${flow}/signed-in`,
    logout: `${flow}/logout`,
    forgotPassword: `${flow}/forgot-password`,
    resetPassword: `${flow}/reset-password`,
    verifyEmail: `${flow}/verify-email`,
    /** The page's own endpoints for emails (docs/widget.md, "Emails"). */
    resetPasswordRequest: `${baseUrl}/framework/${applicationId}/reset-password`,
    verifyEmailRequest: `${baseUrl}/framework/${applicationId}/verify-email/send`,
    network: (network: string) => `${flow}/oauth/${network}`,
    callback: (network: string) => `${flow}/oauth/${network}/callback`,
  };
}

export function withQuery(url: string, query: Record<string, string | undefined>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) target.searchParams.set(name, value);
  return target.toString();
}
