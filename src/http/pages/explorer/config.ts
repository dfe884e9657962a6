/** What the explorer page's script is told by the server (see landing.ts). */
export interface ExplorerConfig {
  /** Where GraphiQL sends operations: this gateway's /graphql. */
  endpoint: string;
  /** Prefilled as the x-api-key header outside production (the demo key). */
  apiKey?: string;
  /** The page loading Apollo Sandbox from Apollo's CDN, outside production. */
  sandboxUrl?: string;
  exampleQuery: string;
}
