/**
 * What an id may be. Most tables number their rows with PostgreSQL `integer`s; activity records,
 * login events and queue rows with `bigint`s. A number outside the column's range can name no row,
 * and sent to PostgreSQL it would fail the statement, so it is refused as the caller's mistake first.
 */
export const maxIntegerId = 2_147_483_647;
export const maxBigintId = Number.MAX_SAFE_INTEGER;

export function isId(value: number, max: number = maxIntegerId): boolean {
  return Number.isSafeInteger(value) && value >= 1 && value <= max;
}
