/**
 * A value of a GraphQL response that PostgreSQL has already serialised: a field answered whole by
 * one statement (see graphql/execution.ts, `SqlAnswer`) puts the statement's JSON text in the
 * response as it is, instead of parsing it into objects that the response would serialise again.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * The response as JSON: compact, with `JsonText` values of `data`'s top-level fields spliced in
 * as they are. Anything else is `JSON.stringify`'s.
 */
export function stringifyResult(result: { data?: unknown }): string {
  const data = result.data;
  if (!data || typeof data !== 'object' || !Object.values(data).some((value) => value instanceof JsonText)) return JSON.stringify(result);
  const fields = Object.entries(data).map(([key, value]) => `${JSON.stringify(key)}:${value instanceof JsonText ? value.text : JSON.stringify(value)}`);
  const rest = Object.entries(result as Record<string, unknown>)
    .filter(([key, value]) => key !== 'data' && value !== undefined)
    .map(([key, value]) => `,${JSON.stringify(key)}:${JSON.stringify(value)}`);
  return `{"data":{${fields.join(',')}}${rest.join('')}}`;
}
