import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { applications, widgetSessions } from '../../db/schema/index.js';

/** The columns of a widget session a fan may see: never its hash. */
const sessionColumns = {
  id: widgetSessions.id,
  applicationId: widgetSessions.applicationId,
  applicationName: applications.name,
  beganWith: widgetSessions.beganWith,
  createdAt: widgetSessions.createdAt,
  expiresAt: widgetSessions.expiresAt,
};

/**
 * The member's widget sessions, newest first (the 100 latest, as the console's fan page lists
 * them), each with whether it still answers: started under the member's current session
 * generation and not expired.
 */
export function sessionsOfMember(db: Executor, accountId: number, memberId: number, sessionGeneration: number) {
  return db
    .select({ ...sessionColumns, live: sql<boolean>`${widgetSessions.sessionGeneration} = ${sessionGeneration} and ${widgetSessions.expiresAt} > now()` })
    .from(widgetSessions)
    .innerJoin(applications, and(eq(applications.accountId, widgetSessions.accountId), eq(applications.id, widgetSessions.applicationId)))
    .where(and(eq(widgetSessions.accountId, accountId), eq(widgetSessions.memberId, memberId)))
    .orderBy(desc(widgetSessions.createdAt), desc(widgetSessions.id))
    .limit(100);
}
export type ViewerSessionRow = Awaited<ReturnType<typeof sessionsOfMember>>[number];

/** Deletes one widget session of the member, as the widget's sign-out does; answers whether there was one. */
export async function deleteSessionOfMember(db: Executor, accountId: number, memberId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(widgetSessions)
    .where(and(eq(widgetSessions.accountId, accountId), eq(widgetSessions.memberId, memberId), eq(widgetSessions.id, id)))
    .returning({ id: widgetSessions.id });
  return rows.length > 0;
}
