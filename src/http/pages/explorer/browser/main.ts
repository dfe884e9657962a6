// The GraphQL explorer: GraphiQL with the explorer plugin (a clickable field tree), bundled from
// node_modules so it works with no network beyond the gateway.
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { createElement, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import 'graphiql/style.css';
import '@graphiql/plugin-explorer/style.css';
import './explorer.css';
import { readPageConfig } from '../../shared/browser/config.js';
import type { ExplorerConfig } from '../config.js';

const config = readPageConfig<ExplorerConfig>();
const fetcher = createGraphiQLFetcher({ url: config.endpoint });
const explorer = explorerPlugin({ showAttribution: false });
const headers = config.apiKey ? JSON.stringify({ 'x-api-key': config.apiKey }, null, 2) : '{\n  "x-api-key": ""\n}';

/** Below this width the Explorer panel would take the screen from the query editor: it stays closed (one tap opens it). */
const narrowScreen = '(max-width: 720px)';

/**
 * GraphiQL 4 lays its plugin pane out hidden when no plugin is visible at its first render, and the
 * visiblePlugin prop only takes effect after that; so the Explorer is opened as a click opens it,
 * once its button exists (GraphiQL renders its interface after its providers are ready).
 */
function openExplorerPanel(): void {
  if (window.matchMedia(narrowScreen).matches) return;
  const selector = `.graphiql-sidebar button[aria-label="Show ${explorer.title}"]`;
  const open = () => {
    const button = document.querySelector<HTMLButtonElement>(selector);
    if (button) button.click();
    return Boolean(button);
  };
  if (open()) return;
  const observer = new MutationObserver(() => {
    if (open()) observer.disconnect();
  });
  observer.observe(document.body, { childList: true, subtree: true });
}

function Explorer() {
  useEffect(openExplorerPanel, []);
  return createElement(
    GraphiQL,
    {
      fetcher,
      plugins: [explorer],
      defaultQuery: config.exampleQuery,
      headers,
      defaultHeaders: headers,
      defaultEditorToolsVisibility: 'headers',
      // Headers hold the API key: kept in the page only, never in localStorage.
      shouldPersistHeaders: false,
    },
    createElement(GraphiQL.Logo, null, 'Marquee'),
    config.sandboxUrl ? createElement(GraphiQL.Footer, null, createElement('a', { className: 'marquee-sandbox-link', href: config.sandboxUrl }, 'Open in Apollo Sandbox (loads from Apollo’s CDN)')) : null,
  );
}

createRoot(document.getElementById('explorer')!).render(createElement(Explorer));
