import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { applications, type SelfServiceLists } from '../../db/schema/index.js';

/** The application's lists open to fans as stored (unset: none). */
export async function selfServiceListsOf(db: Executor, accountId: number, applicationId: number): Promise<SelfServiceLists | undefined> {
  const [row] = await db
    .select({ settings: applications.settings })
    .from(applications)
    .where(and(eq(applications.accountId, accountId), eq(applications.id, applicationId)));
  return row?.settings.selfServiceLists;
}

/** Replaces the setting's one key (a shallow JSONB merge, so other modules' keys stay). */
export async function saveSelfServiceLists(db: Executor, accountId: number, applicationId: number, lists: SelfServiceLists): Promise<void> {
  await db
    .update(applications)
    .set({ settings: sql`${applications.settings} || ${JSON.stringify({ selfServiceLists: lists })}::jsonb` })
    .where(and(eq(applications.accountId, accountId), eq(applications.id, applicationId)));
}
