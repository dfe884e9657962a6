import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral } from '../../src/db/arrays.js';
import type { DatabaseHandle } from '../../src/db/client.js';
import { executeRows } from '../../src/db/rows.js';
import { createTestDatabase } from '../support/database.js';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

/** The literal written the plain way: every element quoted, its quotes and backslashes escaped. */
function plainLiteral(values: readonly (string | number | boolean | null | undefined)[]): string {
  return `{${values.map((value) => (value === null || value === undefined ? 'NULL' : `"${String(value).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;
}

const element = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', '"', '\\', ',', '{', '}', ' ', 'é', 'N', 'U', 'L') }),
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);

describe('arrayLiteral', () => {
  it('writes every list as the plain quoting of each element does', () => {
    fc.assert(
      fc.property(fc.array(element, { maxLength: 30 }), (values) => {
        expect(arrayLiteral(values)).toBe(plainLiteral(values));
      }),
      { numRuns: 2000 },
    );
  });

  it('is read back by the database as the very texts it was given', async () => {
    const texts = ['plain', 'with "quotes"', 'back\\slash', '\\"both\\"', 'NULL', '', 'a,b', '{braces}', ' spaced ', 'é ü 😀'];
    const values = [...texts, null];
    // Unnested: the drivers read a text[] answer back in their own ways (postgres.js reads NULL as 'NULL').
    const rows = await executeRows<{ text: string | null }>(database.db, sql`select u.text from unnest(${arrayLiteral(values)}::text[]) with ordinality as u(text, n) order by u.n`);
    expect(rows.map((row) => row.text)).toEqual(values);
  });
});
