import { html } from '../../../modules/widget/flow/html.js';
import { pageShell } from '../shell.js';

export const sandboxPath = '/graphql/sandbox';

/** Apollo's embeddable Sandbox: its loader script and the frame it opens. */
export const sandboxOrigins = { script: 'https://embeddable-sandbox.cdn.apollographql.com', frame: 'https://sandbox.embed.apollographql.com' };

export const sandboxPolicy = `default-src 'none'; script-src 'self' ${sandboxOrigins.script}; style-src 'self' 'unsafe-inline'; frame-src ${sandboxOrigins.frame}; connect-src 'self'; base-uri 'none'; form-action 'none'`;

export interface SandboxConfig {
  endpoint: string;
  apiKey?: string;
  scriptUrl: string;
}

/**
 * Apollo Sandbox, for those who prefer it and can reach Apollo's CDN: the only page of the gateway
 * that loads anything from elsewhere, and only when someone opens it (the explorer links to it).
 */
export function sandboxPage(options: { apiKey?: string }): string {
  const config: SandboxConfig = {
    endpoint: '/graphql',
    apiKey: options.apiKey,
    scriptUrl: `${sandboxOrigins.script}/v2/embeddable-sandbox.umd.production.min.js`,
  };
  return pageShell({
    title: 'Apollo Sandbox · Marquee',
    bundle: 'sandbox',
    config,
    policy: sandboxPolicy,
    body: html`<div id="sandbox-fallback"><p>Apollo Sandbox loads from Apollo's CDN, which cannot be reached from here.
<a href="/graphql">The built-in explorer</a> works without it.</p></div>
<div id="sandbox"></div>`,
  });
}
