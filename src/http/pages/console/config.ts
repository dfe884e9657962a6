/** What the console's page tells its script (a JSON data block in the page). */
export interface ConsoleConfig {
  /** The console's GraphQL endpoint: staff operations only, with the session cookie. */
  endpoint: string;
}
