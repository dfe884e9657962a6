/**
 * A PostgreSQL array literal of `values` (null for NULL), sent as one text parameter and cast by the
 * statement (`::int[]`, `::jsonb[]`, …): a batch is one parameter per column whatever its size, so
 * the statement text, and the prepared statement, stay the same for every batch.
 */
export function arrayLiteral(values: readonly (string | number | boolean | null | undefined)[]): string {
  const items = values.map((value) => {
    if (value === null || value === undefined) return 'NULL';
    return `"${String(value).replace(/["\\]/g, '\\$&')}"`;
  });
  return `{${items.join(',')}}`;
}
