import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { applications, members, signInTokens, widgetSessions, type ApplicationSettings } from '../../db/schema/index.js';
import { currentSessionGeneration } from '../members/members.sessions.queries.js';

/** A row issued under the member's current session generation (the member's sessions not ended since). */
const stillCurrent = (table: typeof signInTokens | typeof widgetSessions) =>
  sql`exists (select 1 from ${members} where ${members.accountId} = ${table.accountId} and ${members.id} = ${table.memberId} and ${members.sessionGeneration} = ${table.sessionGeneration})`;

/** A token issued under the member's current session generation, read by the insert itself. */
export async function insertSignInToken(db: Executor, values: Omit<typeof signInTokens.$inferInsert, 'sessionGeneration'>) {
  await db.insert(signInTokens).values({ ...values, sessionGeneration: currentSessionGeneration(values.accountId, values.memberId) });
}

/**
 * Spends a token in one statement: only a live, unused token of this application matches, so two
 * concurrent exchanges cannot both win, and another application's attempt leaves it unspent.
 */
export async function spendSignInToken(
  db: Executor,
  { accountId, applicationId, tokenHash, now }: { accountId: number; applicationId: number; tokenHash: string; now: Date },
) {
  const [row] = await db
    .update(signInTokens)
    .set({ usedAt: now })
    .where(and(
      eq(signInTokens.tokenHash, tokenHash),
      eq(signInTokens.accountId, accountId),
      eq(signInTokens.applicationId, applicationId),
      isNull(signInTokens.usedAt),
      gt(signInTokens.expiresAt, now),
      stillCurrent(signInTokens),
    ))
    .returning({ memberId: signInTokens.memberId });
  return row;
}

/** Spent and expired tokens are useless: they are cleared as new ones are issued. */
export async function deleteStaleSignInTokens(db: Executor, accountId: number, before: Date) {
  await db.delete(signInTokens).where(and(eq(signInTokens.accountId, accountId), lt(signInTokens.expiresAt, before)));
}

/** A session started under the member's current session generation, read by the insert itself. */
export async function insertSession(db: Executor, values: Omit<typeof widgetSessions.$inferInsert, 'sessionGeneration'>) {
  await db.insert(widgetSessions).values({ ...values, sessionGeneration: currentSessionGeneration(values.accountId, values.memberId) });
}

export async function findSession(db: Executor, app: { accountId: number; applicationId: number }, sessionHash: string, now: Date) {
  const [row] = await db
    .select({ memberId: widgetSessions.memberId, beganWith: widgetSessions.beganWith })
    .from(widgetSessions)
    .where(
      and(
        eq(widgetSessions.accountId, app.accountId),
        eq(widgetSessions.applicationId, app.applicationId),
        eq(widgetSessions.sessionHash, sessionHash),
        gt(widgetSessions.expiresAt, now),
        stillCurrent(widgetSessions),
      ),
    );
  return row;
}

export async function deleteSession(db: Executor, app: { accountId: number; applicationId: number }, sessionHash: string, now: Date) {
  await db
    .delete(widgetSessions)
    .where(
      and(
        eq(widgetSessions.accountId, app.accountId),
        eq(widgetSessions.applicationId, app.applicationId),
        or(eq(widgetSessions.sessionHash, sessionHash), lt(widgetSessions.expiresAt, now)),
      ),
    );
}

/** Merges keys into the application's settings (a shallow JSONB merge, so other modules' keys stay). */
export async function mergeApplicationSettings(db: Executor, accountId: number, applicationId: number, patch: Partial<ApplicationSettings>) {
  const [row] = await db
    .update(applications)
    .set({ settings: sql`${applications.settings} || ${JSON.stringify(patch)}::jsonb` })
    .where(and(eq(applications.accountId, accountId), eq(applications.id, applicationId)))
    .returning({ settings: applications.settings });
  return row?.settings;
}
