import { and, asc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { executeRows } from '../../db/rows.js';
import { accounts, apiKeys, applications, scoreWindowClaims, whitelistedDomains, type ApplicationSettings, type Plan } from '../../db/schema/index.js';

export async function findAccountByName(db: Executor, name: string) {
  const [row] = await db.select().from(accounts).where(eq(accounts.name, name));
  return row;
}

export async function findAccountById(db: Executor, id: number) {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row;
}

export async function insertAccount(db: Executor, name: string) {
  const [row] = await db.insert(accounts).values({ name }).onConflictDoUpdate({ target: accounts.name, set: { name } }).returning();
  // The kept windows' claim row, claiming nothing yet: a statement that stores records holds it
  // `for share` (recordGate in kept-data/kept-writes.ts), so even the first fold's claim waits for
  // them and a new account's records are stored in one statement, not sent to a transaction.
  await db
    .insert(scoreWindowClaims)
    .values({ accountId: row.id, claimedUntil: sql`'-infinity'::timestamptz` })
    .onConflictDoNothing();
  return row;
}

export async function listAccounts(db: Executor) {
  return db.select().from(accounts).orderBy(asc(accounts.id));
}

/**
 * The accounts, in id order, for which `holds` (a boolean expression naming the one account it is
 * given) is true: a statement per account, each naming its account, for the background workers
 * that look for work. On a Citus cluster a subquery on tenant tables correlated to `accounts` (a
 * reference table) is refused, and one over every account's rows would read them all.
 */
export async function accountsWhere(db: Executor, holds: (accountId: number) => SQL): Promise<number[]> {
  const found: number[] = [];
  for (const { id } of await db.select({ id: accounts.id }).from(accounts).orderBy(asc(accounts.id))) {
    const [row] = await executeRows<{ holds: boolean }>(db, sql`select ${holds(Number(id))} as holds`);
    if (row.holds) found.push(Number(id));
  }
  return found;
}

export async function insertApplication(db: Executor, accountId: number, name: string, plan: Plan) {
  const [row] = await db.insert(applications).values({ accountId, name, plan }).returning();
  return row;
}

export async function findApplication(db: Executor, accountId: number, applicationId: number) {
  const [row] = await db
    .select()
    .from(applications)
    .where(and(eq(applications.accountId, accountId), eq(applications.id, applicationId)));
  return row;
}

export async function findApplicationById(db: Executor, applicationId: number) {
  const [row] = await db.select().from(applications).where(eq(applications.id, applicationId));
  return row;
}

export async function listApplications(db: Executor, accountId: number) {
  return db.select().from(applications).where(eq(applications.accountId, accountId)).orderBy(asc(applications.id));
}

export async function updateApplicationPlan(db: Executor, applicationId: number, plan: Plan) {
  const [row] = await db.update(applications).set({ plan }).where(eq(applications.id, applicationId)).returning();
  return row;
}

/** Sets how the application's network tokens are trusted (a shallow JSONB merge: other settings stay). */
export async function updateNetworkVerification(db: Executor, { applicationId, accountId }: { applicationId: number; accountId?: number }, mode: NonNullable<ApplicationSettings['networkVerification']>) {
  const [row] = await db
    .update(applications)
    .set({ settings: sql`${applications.settings} || ${JSON.stringify({ networkVerification: mode })}::jsonb` })
    .where(accountId === undefined ? eq(applications.id, applicationId) : and(eq(applications.accountId, accountId), eq(applications.id, applicationId)))
    .returning();
  return row;
}

/**
 * Switches one feature of `settings.features` on or off, in one statement (other settings and
 * features stay): the feature is removed, then added back when switched on, so it is listed once.
 */
export async function updateApplicationFeature(db: Executor, { applicationId, accountId }: { applicationId: number; accountId?: number }, feature: string, enabled: boolean) {
  const without = sql`coalesce(${applications.settings} -> 'features', '[]'::jsonb) - ${feature}::text`;
  const features = enabled ? sql`(${without}) || jsonb_build_array(${feature}::text)` : without;
  const [row] = await db
    .update(applications)
    .set({ settings: sql`jsonb_set(${applications.settings}, '{features}', ${features})` })
    .where(accountId === undefined ? eq(applications.id, applicationId) : and(eq(applications.accountId, accountId), eq(applications.id, applicationId)))
    .returning();
  return row;
}

export async function insertApiKey(db: Executor, values: { accountId: number; applicationId: number | null; keyHash: string; prefix: string }) {
  const [row] = await db.insert(apiKeys).values(values).returning();
  return row;
}

/** The key, its application and plan in one round trip: this runs on every request. */
export async function findLiveKeyByHash(db: Executor, keyHash: string) {
  const [row] = await db
    .select({
      keyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      accountId: apiKeys.accountId,
      applicationId: apiKeys.applicationId,
      applicationName: applications.name,
      plan: applications.plan,
      settings: applications.settings,
    })
    .from(apiKeys)
    // The key's own account holds the application to it, so only the key is found across accounts.
    .leftJoin(applications, and(eq(applications.accountId, apiKeys.accountId), eq(applications.id, apiKeys.applicationId)))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
  return row;
}

export async function listKeys(db: Executor, accountId: number) {
  return db
    .select({
      id: apiKeys.id,
      applicationId: apiKeys.applicationId,
      prefix: apiKeys.prefix,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(asc(apiKeys.id));
}

/** Revokes a live key by its id; with `accountId`, only a key of that account (the console names its own). */
export async function revokeKey(db: Executor, keyId: number, accountId?: number) {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(accountId === undefined ? and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)) : and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id, keyHash: apiKeys.keyHash, accountId: apiKeys.accountId, applicationId: apiKeys.applicationId });
  return row;
}

/** A key of the account by its id, live or not (never its hash). */
export async function findKey(db: Executor, accountId: number, keyId: number) {
  const [row] = await db
    .select({ id: apiKeys.id, applicationId: apiKeys.applicationId, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, keyId)));
  return row;
}

export async function revokeGlobalKeys(db: Executor, accountId: number) {
  return db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.applicationId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id, keyHash: apiKeys.keyHash });
}

export async function listWhitelist(db: Executor, accountId: number, applicationId: number) {
  const rows = await db
    .select({ domain: whitelistedDomains.domain })
    .from(whitelistedDomains)
    .where(and(eq(whitelistedDomains.accountId, accountId), eq(whitelistedDomains.applicationId, applicationId)))
    .orderBy(asc(whitelistedDomains.domain));
  return rows.map((row) => row.domain);
}

export async function insertWhitelistedDomain(db: Executor, accountId: number, applicationId: number, domain: string) {
  await db.insert(whitelistedDomains).values({ accountId, applicationId, domain }).onConflictDoNothing();
}

export async function deleteWhitelistedDomain(db: Executor, accountId: number, applicationId: number, domain: string) {
  const rows = await db
    .delete(whitelistedDomains)
    .where(and(eq(whitelistedDomains.accountId, accountId), eq(whitelistedDomains.applicationId, applicationId), eq(whitelistedDomains.domain, domain)))
    .returning({ domain: whitelistedDomains.domain });
  return rows.length > 0;
}
