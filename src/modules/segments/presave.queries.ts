import { and, asc, eq, inArray, isNotNull, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { memberServices, optins, presaveJobs, presaveResults, type PresaveItems } from '../../db/schema/index.js';

export type PresaveJobRow = typeof presaveJobs.$inferSelect;
export type PresaveResultRow = typeof presaveResults.$inferSelect;

export async function insertJob(db: Executor, values: { accountId: number; segmentId: number; applicationId: number; items: PresaveItems }) {
  const [row] = await db.insert(presaveJobs).values(values).returning();
  return row;
}

export async function findJob(db: Executor, accountId: number, id: number): Promise<PresaveJobRow | undefined> {
  const [row] = await db
    .select()
    .from(presaveJobs)
    .where(and(eq(presaveJobs.accountId, accountId), eq(presaveJobs.id, id)));
  return row;
}

/**
 * Marks the job running for this run, unless another run holds it. A run that stopped without
 * finishing (the gateway restarted) lets go after `staleAfterMs`.
 */
export async function claimJob(db: Executor, accountId: number, id: number, staleAfterMs: number): Promise<PresaveJobRow | undefined> {
  const [row] = await db
    .update(presaveJobs)
    .set({ status: 'running', runs: sql`${presaveJobs.runs} + 1`, startedAt: new Date(), finishedAt: null })
    .where(and(eq(presaveJobs.accountId, accountId), eq(presaveJobs.id, id), or(ne(presaveJobs.status, 'running'), lt(presaveJobs.startedAt, new Date(Date.now() - staleAfterMs)))))
    .returning();
  return row;
}

/** Puts a job that is not running back in the queue for a retry; undefined while a run holds it. */
export async function requeueJob(db: Executor, accountId: number, id: number, staleAfterMs: number): Promise<PresaveJobRow | undefined> {
  const [row] = await db
    .update(presaveJobs)
    .set({ status: 'queued', finishedAt: null })
    .where(and(eq(presaveJobs.accountId, accountId), eq(presaveJobs.id, id), or(ne(presaveJobs.status, 'running'), lt(presaveJobs.startedAt, new Date(Date.now() - staleAfterMs)))))
    .returning();
  return row;
}

export async function finishJob(db: Executor, accountId: number, id: number) {
  await db
    .update(presaveJobs)
    .set({ status: 'done', finishedAt: new Date() })
    .where(and(eq(presaveJobs.accountId, accountId), eq(presaveJobs.id, id)));
}

/** Members currently opted into the segment, by id. */
export async function optedInMembers(db: Executor, accountId: number, segmentId: number): Promise<number[]> {
  const rows = await db
    .select({ memberId: optins.memberId })
    .from(optins)
    .where(and(eq(optins.accountId, accountId), eq(optins.segmentId, segmentId), eq(optins.kind, 'segment'), isNull(optins.optedOutAt)))
    .orderBy(asc(optins.memberId));
  return rows.map((row) => row.memberId);
}

/** The members' valid links to these networks that hold a token. */
export function musicServicesOf(db: Executor, accountId: number, memberIds: readonly number[], networks: readonly string[]) {
  return db
    .select()
    .from(memberServices)
    .where(
      and(
        eq(memberServices.accountId, accountId),
        inArray(memberServices.memberId, memberIds.length ? [...memberIds] : [0]),
        inArray(memberServices.network, networks.length ? [...networks] : ['']),
        eq(memberServices.valid, true),
        isNotNull(memberServices.tokenSealed),
      ),
    );
}

/** Records a final result once: a later run keeps what an earlier one found. */
export async function recordOnce(db: Executor, values: typeof presaveResults.$inferInsert) {
  await db.insert(presaveResults).values(values).onConflictDoNothing();
}

/**
 * Takes the member's save on this network for this run: a new row, or a failed one to try again.
 * False when another run has it, or it is saved or skipped already: then nothing is called.
 */
export async function claimSave(db: Executor, values: { accountId: number; jobId: number; memberId: number; network: string; item: string }): Promise<boolean> {
  const inserted = await db
    .insert(presaveResults)
    .values({ ...values, status: 'pending' })
    .onConflictDoNothing()
    .returning({ id: presaveResults.id });
  if (inserted.length) return true;
  const retried = await db
    .update(presaveResults)
    .set({ status: 'pending', reason: null, updatedAt: new Date() })
    .where(
      and(
        eq(presaveResults.accountId, values.accountId),
        eq(presaveResults.jobId, values.jobId),
        eq(presaveResults.memberId, values.memberId),
        eq(presaveResults.network, values.network),
        eq(presaveResults.status, 'failed'),
      ),
    )
    .returning({ id: presaveResults.id });
  return retried.length > 0;
}

/** The job that already saved this item for the member, if any. */
/** The job, other than `exceptJobId`, that already saved this item for the member. */
export async function savedBefore(db: Executor, { accountId, memberId, item, exceptJobId }: { accountId: number; memberId: number; item: string; exceptJobId: number }): Promise<number | undefined> {
  const [row] = await db
    .select({ jobId: presaveResults.jobId })
    .from(presaveResults)
    .where(and(eq(presaveResults.accountId, accountId), eq(presaveResults.memberId, memberId), eq(presaveResults.item, item), eq(presaveResults.status, 'saved'), ne(presaveResults.jobId, exceptJobId)))
    .limit(1);
  return row?.jobId;
}

/** One member's result on one network of a job: what became of it, and why. */
export interface PresaveOutcome {
  accountId: number;
  jobId: number;
  memberId: number;
  network: string;
  status: 'saved' | 'skipped' | 'failed';
  reason: string | null;
}

export async function settle(db: Executor, { accountId, jobId, memberId, network, status, reason }: PresaveOutcome) {
  await db
    .update(presaveResults)
    .set({ status, reason, updatedAt: new Date() })
    .where(and(eq(presaveResults.accountId, accountId), eq(presaveResults.jobId, jobId), eq(presaveResults.memberId, memberId), eq(presaveResults.network, network)));
}

export function resultsOf(db: Executor, accountId: number, jobId: number) {
  return db
    .select()
    .from(presaveResults)
    .where(and(eq(presaveResults.accountId, accountId), eq(presaveResults.jobId, jobId)))
    .orderBy(asc(presaveResults.memberId), asc(presaveResults.network));
}

/**
 * Jobs not done yet, by status, across accounts, for /metrics: presaves are rare (one per release
 * campaign), so the table stays small enough to read whole.
 */
export async function unfinishedJobsByStatus(db: Executor): Promise<{ status: PresaveJobRow['status']; jobs: number }[]> {
  return db
    .select({ status: presaveJobs.status, jobs: sql<number>`count(*)::int` })
    .from(presaveJobs)
    .where(ne(presaveJobs.status, 'done'))
    .groupBy(presaveJobs.status);
}
