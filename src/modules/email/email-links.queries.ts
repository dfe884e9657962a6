import { and, eq, gt, isNull, lt, ne } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { memberEmailLinks } from '../../db/schema/index.js';

export type EmailLinkRow = typeof memberEmailLinks.$inferSelect;
export type LinkPurpose = EmailLinkRow['purpose'];

export async function insertEmailLink(db: Executor, values: typeof memberEmailLinks.$inferInsert): Promise<EmailLinkRow> {
  const [row] = await db.insert(memberEmailLinks).values(values).returning();
  return row;
}

export async function findEmailLink(db: Executor, accountId: number, id: number): Promise<EmailLinkRow | undefined> {
  const [row] = await db
    .select()
    .from(memberEmailLinks)
    .where(and(eq(memberEmailLinks.accountId, accountId), eq(memberEmailLinks.id, id)));
  return row;
}

/**
 * Spends a link in one statement: only an unused, unexpired link matches, so of two concurrent uses
 * one wins. Answers whether this call spent it.
 */
export async function spendEmailLink(db: Executor, accountId: number, id: number, now: Date): Promise<boolean> {
  const rows = await db
    .update(memberEmailLinks)
    .set({ usedAt: now })
    .where(and(eq(memberEmailLinks.accountId, accountId), eq(memberEmailLinks.id, id), isNull(memberEmailLinks.usedAt), gt(memberEmailLinks.expiresAt, now)))
    .returning({ id: memberEmailLinks.id });
  return rows.length === 1;
}

/** A completed reset spends the member's other reset links: an older email must not reset the new password. */
export async function spendOtherLinks(db: Executor, accountId: number, memberId: number, purpose: LinkPurpose, keptId: number, now: Date): Promise<void> {
  await db
    .update(memberEmailLinks)
    .set({ usedAt: now })
    .where(and(eq(memberEmailLinks.accountId, accountId), eq(memberEmailLinks.memberId, memberId), eq(memberEmailLinks.purpose, purpose), isNull(memberEmailLinks.usedAt), ne(memberEmailLinks.id, keptId)));
}

/** Links expired a day ago or more tell nothing worth keeping: cleared as new ones are issued. */
export async function deleteStaleEmailLinks(db: Executor, accountId: number, before: Date): Promise<void> {
  await db.delete(memberEmailLinks).where(and(eq(memberEmailLinks.accountId, accountId), lt(memberEmailLinks.expiresAt, before)));
}
