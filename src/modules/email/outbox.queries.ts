import { and, eq, lt, lte, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { emailOutbox } from '../../db/schema/index.js';
import { accountsWhere } from '../tenancy/tenancy.queries.js';

export type OutboxRow = typeof emailOutbox.$inferSelect;
export type NewOutboxRow = typeof emailOutbox.$inferInsert;

export async function insertOutboxMessage(db: Executor, values: NewOutboxRow): Promise<OutboxRow> {
  const [row] = await db.insert(emailOutbox).values(values).returning();
  return row;
}

/** The accounts with a message due: the worker then claims each account's messages on their own. */
export function accountsWithDueMail(db: Executor, now: Date): Promise<number[]> {
  return accountsWhere(
    db,
    (accountId) => sql`exists (select 1 from ${emailOutbox} where account_id = ${accountId}::int
    and status = 'pending' and next_attempt_at <= ${now.toISOString()}::timestamptz)`,
  );
}

/**
 * Claims up to `limit` due messages of one account: each gets an attempt counted and its next
 * attempt moved a lease ahead, in one statement, so another worker passes it by (skip locked now,
 * not due later) while this one sends it. A worker that stops mid-send leaves the message to be
 * taken again when the lease ends. No lock is held while the SMTP server is talked to.
 */
export async function claimDueMessages(db: Executor, accountId: number, now: Date, leaseMs: number, limit: number): Promise<OutboxRow[]> {
  const due = db
    .select({ id: emailOutbox.id })
    .from(emailOutbox)
    .where(and(eq(emailOutbox.accountId, accountId), eq(emailOutbox.status, 'pending'), lte(emailOutbox.nextAttemptAt, now)))
    .orderBy(emailOutbox.nextAttemptAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(emailOutbox)
    .set({ attempts: sql`${emailOutbox.attempts} + 1`, nextAttemptAt: new Date(now.getTime() + leaseMs) })
    .where(and(eq(emailOutbox.accountId, accountId), sql`${emailOutbox.id} in ${due}`))
    .returning();
}

/** Sent: the body (which holds a live link) is not kept. */
export async function markSent(db: Executor, message: Pick<OutboxRow, 'accountId' | 'id'>, now: Date): Promise<void> {
  await db
    .update(emailOutbox)
    .set({ status: 'sent', sentAt: now, body: '', lastError: null })
    .where(and(eq(emailOutbox.accountId, message.accountId), eq(emailOutbox.id, message.id)));
}

/** A failed attempt: tried again at `retryAt`, or given up (`retryAt` undefined) and its body dropped. */
export async function markAttemptFailed(db: Executor, message: Pick<OutboxRow, 'accountId' | 'id'>, error: string, retryAt: Date | undefined): Promise<void> {
  await db
    .update(emailOutbox)
    .set(retryAt ? { nextAttemptAt: retryAt, lastError: error } : { status: 'failed', body: '', lastError: error })
    .where(and(eq(emailOutbox.accountId, message.accountId), eq(emailOutbox.id, message.id)));
}

/** Sent and abandoned messages are kept a week for the record, then cleared as new ones are queued. */
export async function deleteFinishedMessages(db: Executor, accountId: number, before: Date): Promise<void> {
  await db.delete(emailOutbox).where(and(eq(emailOutbox.accountId, accountId), ne(emailOutbox.status, 'pending'), lt(emailOutbox.createdAt, before)));
}
