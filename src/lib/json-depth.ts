/**
 * How deep a stored JSON value (a record's `content`, a member's `extended` fields) may nest: far
 * more than any such value needs, far less than the database's JSON functions can recurse.
 */
export const maxStoredJsonDepth = 32;

/**
 * How deep a JSON value nests (a scalar is 0, `{}` and `[]` are 1), counted without recursion and
 * stopping once past `limit`, so a value nested thousands deep costs no stack and little time.
 * PostgreSQL's jsonb and the JSON functions recurse on nesting and fail with "stack depth limit
 * exceeded" well before a request body's size limit stops such a value.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length) {
    const [current, depth] = pending.pop()!;
    if (!current || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const item of Object.values(current)) if (item && typeof item === 'object') pending.push([item, depth + 1]);
  }
  return false;
}
