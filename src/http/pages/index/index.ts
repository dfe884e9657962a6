import { html } from '../../../modules/widget/flow/html.js';

export interface IndexLink {
  name: string;
  url: string;
  description: string;
}

/** What `GET /` points to; the explorer is /graphql in a browser outside production. */
export function indexLinks(production: boolean): IndexLink[] {
  return [
    production
      ? { name: 'GraphQL', url: '/graphql', description: 'POST queries with the key in x-api-key' }
      : { name: 'GraphQL explorer', url: '/graphql', description: 'GraphiQL on this gateway; POST queries here with the key in x-api-key' },
    { name: 'REST reference', url: '/v1.1/docs', description: 'the /v1.1 interface, rendered by Redoc' },
    { name: 'OpenAPI document', url: '/v1.1/openapi.json', description: 'the /v1.1 interface as an OpenAPI document' },
    { name: 'Dashboard', url: '/dashboard', description: "a brand's statistics, signed in with an application key" },
    { name: 'Health', url: '/healthz', description: 'the process is up' },
    { name: 'Readiness', url: '/readyz', description: 'the database answers' },
  ];
}

/** The index page: plain HTML, no script, nothing loaded but the favicon. */
export function indexPage(links: IndexLink[]): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Marquee</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>
body { margin: 0 auto; max-width: 40rem; padding: 2rem 1.25rem; font: 16px/1.5 system-ui, sans-serif; color: #1d1d2b; }
h1 { font-size: 1.5rem; margin: 0 0 0.25rem; }
p { margin: 0 0 1.5rem; color: #555; }
ul { list-style: none; padding: 0; margin: 0; }
li { padding: 0.6rem 0; border-top: 1px solid #e3e3ea; }
a { color: #5b2fd0; font-weight: 600; }
span { display: block; color: #555; font-size: 0.9rem; }
</style>
</head>
<body>
<h1>Marquee</h1>
<p>A member-engagement gateway: GraphQL at <code>/graphql</code>, REST at <code>/v1.1</code>.</p>
<ul>
${links.map((link) => html`<li><a href="${link.url}">${link.name}</a> <code>${link.url}</code><span>${link.description}</span></li>\n`)}</ul>
</body>
</html>
`.markup;
}

/** The gateway's icon: a marquee's lit frame, drawn here rather than fetched from anywhere. */
export const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect x="2" y="6" width="28" height="20" rx="4" fill="#5b2fd0"/>
<rect x="6" y="10" width="20" height="12" rx="2" fill="#fff"/>
<path d="M10 19v-6l3 4 3-4v6" fill="none" stroke="#5b2fd0" stroke-width="2" stroke-linejoin="round"/>
<circle cx="21" cy="16" r="2" fill="#f5b700"/>
</svg>
`;
