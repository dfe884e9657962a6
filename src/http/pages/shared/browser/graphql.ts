/** One GraphQL call to the gateway with the page's application key, as any client makes it. */
export class GraphQLClient {
  constructor(
    private readonly endpoint: string,
    private readonly apiKey: string,
  ) {}

  async request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': this.apiKey },
      body: JSON.stringify({ query, variables }),
    });
    let body: { data?: T; errors?: { message: string; extensions?: { aeCode?: number } }[] };
    try {
      body = (await response.json()) as typeof body;
    } catch {
      throw new GraphQLRequestError(`The gateway answered HTTP ${response.status} without a GraphQL body.`, response.status);
    }
    if (body.errors?.length) throw new GraphQLRequestError(body.errors.map((error) => error.message).join(' '), response.status, body.errors[0].extensions?.aeCode);
    if (!body.data) throw new GraphQLRequestError(`The gateway answered HTTP ${response.status} without data.`, response.status);
    return body.data;
  }
}

export class GraphQLRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly aeCode?: number,
  ) {
    super(message);
  }
}
