import type { ApolloServerPlugin } from '@apollo/server';
import { html } from '../../../modules/widget/flow/html.js';
import { pageShell } from '../shell.js';
import { sandboxPath } from './sandbox.js';
import type { ExplorerConfig } from './config.js';

const exampleQuery = `# Ctrl+Enter runs the query.
# The headers (below) carry the API key.
query Overview {
  application {
    name
    plan
  }
  brands(first: 5) {
    totalCount
    nodes {
      id
      name
      type
    }
  }
}
`;

/** The explorer's page: GraphiQL from the gateway's own bundle, the key prefilled when given. */
export function explorerPage(options: { apiKey?: string }): string {
  const config: ExplorerConfig = { endpoint: '/graphql', apiKey: options.apiKey, sandboxUrl: sandboxPath, exampleQuery };
  return pageShell({
    title: 'Marquee GraphQL explorer',
    bundle: 'explorer',
    config,
    body: html`<noscript>The explorer needs JavaScript. Without it, send POST requests to /graphql with the header x-api-key.</noscript>
<div id="explorer"></div>`,
  });
}

/**
 * Apollo's landing page (GET /graphql from a browser) outside production: the explorer, served
 * from local files, so it works offline and behind firewalls. Apollo sends it with its own
 * headers, so the page's policy travels in a meta element.
 */
export function explorerLandingPage(options: { apiKey?: string }): ApolloServerPlugin {
  const page = explorerPage(options);
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html: page };
        },
      };
    },
  };
}
