import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { auditEvents } from '../../db/schema/index.js';

export type AuditEventRow = typeof auditEvents.$inferSelect;
export type NewAuditEventRow = typeof auditEvents.$inferInsert;

/** What a page of the log may be narrowed to; each value is one equality or one end of the time range. */
export interface AuditFilter {
  actorType?: string;
  actorId?: number;
  action?: string;
  targetType?: string;
  targetId?: string;
  /** From this time on (inclusive). */
  from?: Date;
  /** Before this time (exclusive). */
  to?: Date;
}

/** A position in the log: the entry's time in microseconds since the epoch (timestamptz's own precision) and its id. */
export interface AuditPosition {
  us: string;
  id: number;
}

/** The one write of the log: an INSERT. Nothing updates or deletes an entry (the tenancy check fails on either). */
export async function insertAuditEvent(db: Executor, values: NewAuditEventRow): Promise<void> {
  await db.insert(auditEvents).values(values);
}

/**
 * One page of an account's log, newest first, `limit` entries read (the caller asks for one more
 * than it shows, to know whether a page follows). Each row carries its position for the cursor.
 */
export async function auditEventsPage(db: Executor, accountId: number, filter: AuditFilter, after: AuditPosition | undefined, limit: number) {
  const conditions: (SQL | undefined)[] = [
    ...filterConditions(accountId, filter),
    after === undefined ? undefined : sql`(${auditEvents.occurredAt}, ${auditEvents.id}) < (timestamptz 'epoch' + ${after.us}::bigint * interval '1 microsecond', ${after.id})`,
  ];
  return db
    .select({
      row: auditEvents,
      // Text: a bigint of microseconds, which a JavaScript Date (milliseconds) would round.
      us: sql<string>`((extract(epoch from ${auditEvents.occurredAt}) * 1000000)::bigint)::text`,
    })
    .from(auditEvents)
    .where(and(...conditions))
    .orderBy(desc(auditEvents.occurredAt), desc(auditEvents.id))
    .limit(limit);
}

/** How many entries of an account's log the filter keeps, all pages together (AuditEventConnection.totalCount). */
export async function countAuditEvents(db: Executor, accountId: number, filter: AuditFilter): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(auditEvents)
    .where(and(...filterConditions(accountId, filter)));
  return row.count;
}

/** The conditions of the account and the filter, which a page and its count share. */
function filterConditions(accountId: number, filter: AuditFilter): (SQL | undefined)[] {
  return [
    eq(auditEvents.accountId, accountId),
    filter.actorType === undefined ? undefined : eq(auditEvents.actorType, filter.actorType as AuditEventRow['actorType']),
    filter.actorId === undefined ? undefined : eq(auditEvents.actorId, filter.actorId),
    filter.action === undefined ? undefined : eq(auditEvents.action, filter.action),
    filter.targetType === undefined ? undefined : eq(auditEvents.targetType, filter.targetType),
    filter.targetId === undefined ? undefined : eq(auditEvents.targetId, filter.targetId),
    filter.from === undefined ? undefined : gte(auditEvents.occurredAt, filter.from),
    filter.to === undefined ? undefined : lt(auditEvents.occurredAt, filter.to),
  ];
}
