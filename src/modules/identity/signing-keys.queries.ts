import { and, desc, gt, inArray, isNull, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { signingKeys } from '../../db/schema/index.js';

/** The keys not yet expired at `now`, newest first. */
export function unexpiredKeys(db: Executor, now: Date) {
  return db
    .select()
    .from(signingKeys)
    .where(or(isNull(signingKeys.expiresAt), gt(signingKeys.expiresAt, now)))
    .orderBy(desc(signingKeys.createdAt), desc(signingKeys.kid));
}

/** Every key's id and retirement, newest first (creation times are the database's). */
export function keyChain(db: Executor) {
  return db.select({ kid: signingKeys.kid, retiredAt: signingKeys.retiredAt }).from(signingKeys).orderBy(desc(signingKeys.createdAt), desc(signingKeys.kid));
}

/** Stores a key unless one with its id exists (another process created the same successor). */
export async function insertKeyIfAbsent(db: Executor, key: typeof signingKeys.$inferInsert): Promise<void> {
  await db.insert(signingKeys).values(key).onConflictDoNothing();
}

/** Retires those of these keys still signing: they stop signing and stay published until `expiresAt`. */
export async function retireKeys(db: Executor, kids: string[], retiredAt: Date, expiresAt: Date): Promise<void> {
  await db
    .update(signingKeys)
    .set({ retiredAt, expiresAt })
    .where(and(inArray(signingKeys.kid, kids), isNull(signingKeys.retiredAt)));
}
