import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { applications, members, signInTokens, widgetSessions, type ApplicationSettings } from '../../db/schema/index.js';

/** A row issued under the member's current session generation (the member's sessions not ended since). */
const stillCurrent = (table: typeof signInTokens | typeof widgetSessions) =>
  sql`exists (select 1 from ${members} where ${members.accountId} = ${table.accountId} and ${members.id} = ${table.memberId} and ${members.sessionGeneration} = ${table.sessionGeneration})`;

/**
 * A sign-in token issued under the session generation the sign-in checked its credentials under,
 * and only while the member's sessions are still of that generation: a reset (or a merge, a
 * revocation) committed since inserts nothing, and the answer is false. The generation is read by
 * the insert itself: an `insert … select` from the member's row rather than a subquery among the
 * values, which Citus cannot route (docs/scaling.md, "Statements on a cluster").
 */
export async function insertSignInToken(
  db: Executor,
  values: { accountId: number; applicationId: number; memberId: number; sessionGeneration: number; tokenHash: string; expiresAt: Date },
): Promise<boolean> {
  const rows = await executeRows(
    db,
    sql`insert into ${signInTokens} (account_id, application_id, member_id, token_hash, session_generation, expires_at)
    select ${values.accountId}, ${values.applicationId}, ${values.memberId}, ${values.tokenHash}, ${members.sessionGeneration}, ${values.expiresAt.toISOString()}::timestamptz
    from ${members} where ${members.accountId} = ${values.accountId} and ${members.id} = ${values.memberId} and ${members.sessionGeneration} = ${values.sessionGeneration}
    returning 1 as issued`,
  );
  return rows.length > 0;
}

/**
 * Spends a token in one statement: only a live, unused token of this application matches, so two
 * concurrent exchanges cannot both win, and another application's attempt leaves it unspent.
 */
export async function spendSignInToken(db: Executor, { accountId, applicationId, tokenHash, now }: { accountId: number; applicationId: number; tokenHash: string; now: Date }) {
  const [row] = await db
    .update(signInTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(signInTokens.tokenHash, tokenHash),
        eq(signInTokens.accountId, accountId),
        eq(signInTokens.applicationId, applicationId),
        isNull(signInTokens.usedAt),
        gt(signInTokens.expiresAt, now),
        stillCurrent(signInTokens),
      ),
    )
    .returning({ memberId: signInTokens.memberId });
  return row;
}

/** Spent and expired tokens are useless: they are cleared as new ones are issued. */
export async function deleteStaleSignInTokens(db: Executor, accountId: number, before: Date) {
  await db.delete(signInTokens).where(and(eq(signInTokens.accountId, accountId), lt(signInTokens.expiresAt, before)));
}

/** A session started under the generation its sign-in was checked under, as a sign-in token is; false when it is no longer current. */
export async function insertSession(
  db: Executor,
  values: { accountId: number; applicationId: number; memberId: number; sessionGeneration: number; sessionHash: string; beganWith: string; expiresAt: Date },
): Promise<boolean> {
  const rows = await executeRows(
    db,
    sql`insert into ${widgetSessions} (account_id, application_id, member_id, session_hash, session_generation, began_with, expires_at)
    select ${values.accountId}, ${values.applicationId}, ${values.memberId}, ${values.sessionHash}, ${members.sessionGeneration}, ${values.beganWith}, ${values.expiresAt.toISOString()}::timestamptz
    from ${members} where ${members.accountId} = ${values.accountId} and ${members.id} = ${values.memberId} and ${members.sessionGeneration} = ${values.sessionGeneration}
    returning 1 as started`,
  );
  return rows.length > 0;
}

export async function findSession(db: Executor, app: { accountId: number; applicationId: number }, sessionHash: string, now: Date) {
  const [row] = await db
    .select({ memberId: widgetSessions.memberId, beganWith: widgetSessions.beganWith, sessionGeneration: widgetSessions.sessionGeneration })
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
    .where(and(eq(widgetSessions.accountId, app.accountId), eq(widgetSessions.applicationId, app.applicationId), or(eq(widgetSessions.sessionHash, sessionHash), lt(widgetSessions.expiresAt, now))));
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
