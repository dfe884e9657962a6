/** What the dashboard's script is told by the server (see page.ts). */
export interface DashboardConfig {
  /** Where the dashboard's GraphQL queries go: this gateway's /graphql, with its limits. */
  endpoint: string;
  /** Prefilled in the sign-in form outside production (the demo key). */
  apiKey?: string;
}
