import { and, eq, getTableColumns, gt, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { memberEmailLinks, members } from '../../db/schema/index.js';

export type EmailLinkRow = typeof memberEmailLinks.$inferSelect;
export type LinkPurpose = EmailLinkRow['purpose'];

/**
 * The session generation of the link's member now, as a statement's value: equality on the account
 * and the member, so the statement stays on one account's rows (one shard on Citus).
 */
const memberGenerationNow = (accountId: number) =>
  sql<number | null>`(select ${members.sessionGeneration} from ${members} where ${members.accountId} = ${accountId} and ${members.id} = ${memberEmailLinks.memberId})`;

/** The member's session generation now; undefined when there is no such member. */
export async function readSessionGeneration(db: Executor, accountId: number, memberId: number): Promise<number | undefined> {
  const [row] = await db
    .select({ sessionGeneration: members.sessionGeneration })
    .from(members)
    .where(and(eq(members.accountId, accountId), eq(members.id, memberId)));
  return row?.sessionGeneration;
}

export async function insertEmailLink(db: Executor, values: typeof memberEmailLinks.$inferInsert): Promise<EmailLinkRow> {
  const [row] = await db.insert(memberEmailLinks).values(values).returning();
  return row;
}

/** The link, with its member's session generation now (null when the member is gone). */
export async function findEmailLink(db: Executor, accountId: number, id: number): Promise<(EmailLinkRow & { memberGeneration: number | null }) | undefined> {
  const [row] = await db
    .select({ ...getTableColumns(memberEmailLinks), memberGeneration: memberGenerationNow(accountId) })
    .from(memberEmailLinks)
    .where(and(eq(memberEmailLinks.accountId, accountId), eq(memberEmailLinks.id, id)));
  return row;
}

/**
 * Spends a link in one statement: only an unused, unexpired link issued under its member's current
 * session generation matches, so of two concurrent uses one wins, and a link whose member's
 * sessions were ended (or whose generation was cleared) since it was opened is not spent. A caller
 * that must not race a reset or a revocation locks the member row first: the generation is then
 * read as committed by whoever held it. Answers whether this call spent it.
 */
export async function spendEmailLink(db: Executor, accountId: number, id: number, now: Date): Promise<boolean> {
  const rows = await db
    .update(memberEmailLinks)
    .set({ usedAt: now })
    .where(
      and(
        eq(memberEmailLinks.accountId, accountId),
        eq(memberEmailLinks.id, id),
        isNull(memberEmailLinks.usedAt),
        gt(memberEmailLinks.expiresAt, now),
        sql`${memberEmailLinks.sessionGeneration} = ${memberGenerationNow(accountId)}`,
      ),
    )
    .returning({ id: memberEmailLinks.id });
  return rows.length === 1;
}

/**
 * Ends every outstanding link of the member, of both purposes, without spending it: its generation
 * is cleared, so it never matches again. Run in the transaction of whatever sets the member's
 * password or changes its address: a link asked before must not set a password after, nor confirm
 * an address the member gave up and took back.
 */
export async function endMemberLinks(db: Executor, accountId: number, memberId: number): Promise<void> {
  await db
    .update(memberEmailLinks)
    .set({ sessionGeneration: null })
    .where(and(eq(memberEmailLinks.accountId, accountId), eq(memberEmailLinks.memberId, memberId), isNull(memberEmailLinks.usedAt), isNotNull(memberEmailLinks.sessionGeneration)));
}

/** Links expired a day ago or more tell nothing worth keeping: cleared as new ones are issued. */
export async function deleteStaleEmailLinks(db: Executor, accountId: number, before: Date): Promise<void> {
  await db.delete(memberEmailLinks).where(and(eq(memberEmailLinks.accountId, accountId), lt(memberEmailLinks.expiresAt, before)));
}
