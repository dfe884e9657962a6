import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';

/** The gateway's address as callers reach it: PUBLIC_URL, or the request's own scheme and host. */
export function baseUrlOf(config: Config, request: FastifyRequest): string {
  return config.publicUrl ?? `${request.protocol}://${request.host}`;
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
    logout: `${flow}/logout`,
    network: (network: string) => `${flow}/oauth/${network}`,
    callback: (network: string) => `${flow}/oauth/${network}/callback`,
  };
}

export function withQuery(url: string, query: Record<string, string | undefined>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(query)) if (value !== undefined) target.searchParams.set(name, value);
  return target.toString();
}
