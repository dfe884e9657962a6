import type { Database, Executor } from '../../db/client.js';
import type { applications, ApplicationSettings, Plan } from '../../db/schema/index.js';
import { NetworkVerificationMode, type Application, type PlanLevel } from './tenancy.types.js';
import type { Caller } from '../../core/context.js';
import { AppError, invalidParameter, missingParameter } from '../../core/errors.js';
import { normaliseDomain } from '../../lib/domains.js';
import { digestsEqual, generateApiKey, hashApiKey, keyPrefix } from './tenancy.keys.js';
import * as q from './tenancy.queries.js';
import { recordAudit, type AuditOrigin } from '../audit/audit.js';

export const plans: readonly Plan[] = ['basic', 'advanced', 'enterprise'];

export function parsePlan(value: string): Plan {
  if (!(plans as readonly string[]).includes(value)) {
    throw invalidParameter('plan', `expected one of ${plans.join(', ')}`);
  }
  return value as Plan;
}

export async function createAccount(db: Executor, name: string) {
  const trimmed = name.trim();
  if (!trimmed) throw missingParameter('name');
  return q.insertAccount(db, trimmed);
}

async function issueKey(db: Executor, accountId: number, applicationId: number | null) {
  const apiKey = generateApiKey();
  const row = await q.insertApiKey(db, { accountId, applicationId, keyHash: hashApiKey(apiKey), prefix: keyPrefix(apiKey) });
  return { keyId: row.id, apiKey };
}

/** Creates the application (and its account when the name is new) with a first key. */
/** An application with its first key; with `origin` (the CLI), both are recorded in the account's audit log. */
export async function createApplication(db: Database, input: { accountName: string; name: string; plan: Plan }, origin?: AuditOrigin) {
  const name = input.name.trim();
  if (!name) throw missingParameter('name');
  return db.transaction(async (tx) => {
    const account = await createAccount(tx, input.accountName);
    const application = await q.insertApplication(tx, account.id, name, input.plan);
    const { apiKey, keyId } = await issueKey(tx, account.id, application.id);
    if (origin) {
      await recordAudit(tx, account.id, origin, { action: 'application.create', target: { type: 'application', id: String(application.id) }, details: { plan: input.plan } });
      await recordAudit(tx, account.id, origin, { action: 'key.create', target: { type: 'key', id: String(keyId) }, details: { applicationId: application.id } });
    }
    return { account, application, apiKey, keyId };
  });
}

/** A new key for the application named by its id alone (the CLI, which acts across accounts). */
export async function createApplicationKey(db: Executor, applicationId: number, origin?: AuditOrigin) {
  const application = await q.findApplicationById(db, applicationId);
  if (!application) throw new AppError('NOT_FOUND', `Application ${applicationId} not found.`, 'application');
  return issueApplicationKey(db, application, origin);
}

/**
 * A new key for an application of the account (the console): another account's application is
 * not found, and nothing is written. The key and its `key.create` entry are one transaction.
 */
export async function createAccountApplicationKey(db: Database, accountId: number, applicationId: number, origin: AuditOrigin) {
  return db.transaction(async (tx) => {
    const application = await q.findApplication(tx, accountId, applicationId);
    if (!application) throw new AppError('NOT_FOUND', `The account has no application ${applicationId}.`, 'applicationId');
    return { ...(await issueApplicationKey(tx, application, origin)), application };
  });
}

async function issueApplicationKey(db: Executor, application: { id: number; accountId: number }, origin?: AuditOrigin) {
  const issued = await issueKey(db, application.accountId, application.id);
  if (origin) await recordAudit(db, application.accountId, origin, { action: 'key.create', target: { type: 'key', id: String(issued.keyId) }, details: { applicationId: application.id } });
  return { ...issued, prefix: keyPrefix(issued.apiKey) };
}

/** An account has at most one live global key: issuing a new one revokes the previous one. */
export async function createGlobalKey(db: Database, accountId: number, origin?: AuditOrigin) {
  return db.transaction(async (tx) => {
    const account = await q.findAccountById(tx, accountId);
    if (!account) throw new AppError('NOT_FOUND', `Account ${accountId} not found.`, 'account');
    const revoked = await q.revokeGlobalKeys(tx, accountId);
    revoked.forEach((key) => keyCache.delete(key.keyHash));
    const issued = await issueKey(tx, accountId, null);
    if (origin) await recordAudit(tx, accountId, origin, { action: 'key.create', target: { type: 'key', id: String(issued.keyId) }, details: { global: true, replaced: revoked.length } });
    return issued;
  });
}

/** Revokes a key named by its id alone (the CLI); false when no live key has it. */
export async function revokeApiKey(db: Executor, keyId: number, origin?: AuditOrigin) {
  const revoked = await q.revokeKey(db, keyId);
  if (revoked) keyCache.delete(revoked.keyHash);
  if (revoked && origin) await recordAudit(db, revoked.accountId, origin, { action: 'key.revoke', target: { type: 'key', id: String(keyId) }, details: { applicationId: revoked.applicationId } });
  return Boolean(revoked);
}

/**
 * Revokes a key of the account (the console), with its `key.revoke` entry in the same
 * transaction: true when it was live, false when it was revoked already; another account's key,
 * or none, is not found and nothing is written. This process's key cache forgets it at once.
 */
export async function revokeAccountApiKey(db: Database, accountId: number, keyId: number, origin: AuditOrigin): Promise<boolean> {
  const revoked = await db.transaction(async (tx) => {
    const row = await q.revokeKey(tx, keyId, accountId);
    if (!row) {
      if (!(await q.findKey(tx, accountId, keyId))) throw new AppError('NOT_FOUND', `The account has no API key ${keyId}.`, 'keyId');
      return undefined;
    }
    await recordAudit(tx, accountId, origin, { action: 'key.revoke', target: { type: 'key', id: String(keyId) }, details: { applicationId: row.applicationId } });
    return row;
  });
  if (revoked) keyCache.delete(revoked.keyHash);
  return Boolean(revoked);
}

/**
 * Key → caller, with a short in-process cache: the lookup runs on every request, and a key changes
 * rarely. Revocation through this process takes effect at once; through another gateway, within
 * the cache's lifetime (`API_KEY_CACHE_SECONDS`).
 */
export const defaultKeyCacheMs = 5_000;
const keyCache = new Map<string, { caller: Caller | null; expires: number }>();

export async function resolveApiKey(db: Executor, rawKey: string, cacheMs = defaultKeyCacheMs): Promise<Caller | null> {
  const keyHash = hashApiKey(rawKey);
  const cached = keyCache.get(keyHash);
  if (cached && cached.expires > Date.now()) return cached.caller;
  const row = await q.findLiveKeyByHash(db, keyHash);
  let caller: Caller | null = null;
  // The index lookup compares digests, not keys; the explicit check is constant-time regardless.
  if (row && digestsEqual(row.keyHash, keyHash)) {
    caller =
      row.applicationId === null
        ? { kind: 'account', accountId: row.accountId, keyId: row.keyId }
        : {
            kind: 'application',
            accountId: row.accountId,
            applicationId: row.applicationId,
            applicationName: row.applicationName ?? '',
            plan: row.plan ?? 'basic',
            settings: row.settings ?? {},
            keyId: row.keyId,
          };
  }
  if (keyCache.size > 10_000) keyCache.clear();
  keyCache.set(keyHash, { caller, expires: Date.now() + cacheMs });
  return caller;
}

/** Test and CLI hook: forget cached keys (for example after changing a plan directly). */
export function clearKeyCache(): void {
  keyCache.clear();
}

export async function getApplication(db: Executor, accountId: number, applicationId: number) {
  const application = await q.findApplication(db, accountId, applicationId);
  if (!application) throw new AppError('NOT_FOUND', 'Application not found.', 'apiKey');
  return application;
}

export async function whitelistDomain(db: Executor, accountId: number, applicationId: number, domain: string) {
  await q.insertWhitelistedDomain(db, accountId, applicationId, normaliseDomain(domain));
}

export async function unwhitelistDomain(db: Executor, accountId: number, applicationId: number, domain: string) {
  const host = normaliseDomain(domain);
  const removed = await q.deleteWhitelistedDomain(db, accountId, applicationId, host);
  if (removed) return;
  // Hosts are matched exactly (the widget is let in by exact host), so `www.` matters: name the
  // listed twin of the host, if any, rather than leave the caller guessing.
  const twin = host.startsWith('www.') ? host.slice(4) : `www.${host}`;
  const listed = (await q.listWhitelist(db, accountId, applicationId)).includes(twin);
  throw new AppError('NOT_FOUND', `The domain ${host} is not whitelisted${listed ? `; ${twin} is (hosts match exactly: unwhitelist ${twin})` : ''}.`, 'domain');
}

export const listWhitelist = q.listWhitelist;
export const listAccounts = q.listAccounts;
export const listApplications = q.listApplications;
export const listKeys = q.listKeys;
export const findAccountByName = q.findAccountByName;
export const findAccountById = q.findAccountById;
export const setApplicationPlan = q.updateApplicationPlan;

export type NetworkVerification = NonNullable<ApplicationSettings['networkVerification']>;
const networkVerificationModes: readonly NetworkVerification[] = ['verify', 'trust'];

export function parseNetworkVerification(value: string, param = 'mode'): NetworkVerification {
  const mode = value.trim().toLowerCase();
  if (!networkVerificationModes.includes(mode as NetworkVerification)) throw invalidParameter(param, 'expected verify or trust');
  return mode as NetworkVerification;
}

/**
 * Switches how an application's network tokens are trusted (docs/networks.md). Callers whose keys
 * this process cached see it at once; other gateways within their key cache's lifetime.
 */
export async function setNetworkVerification(db: Executor, application: { applicationId: number; accountId?: number }, mode: NetworkVerification) {
  const row = await q.updateNetworkVerification(db, application, mode);
  clearKeyCache();
  return row;
}

/** The enterprise features an application can switch on (`settings.features`). */
export const applicationFeatures = ['brandCustomFields'] as const;
export type ApplicationFeature = (typeof applicationFeatures)[number];

/**
 * Switches an enterprise feature on or off for an application (docs/brands.md for
 * `brandCustomFields`); like network verification, cached keys of this process see it at once.
 */
export async function setApplicationFeature(db: Executor, application: { applicationId: number; accountId?: number }, feature: ApplicationFeature, enabled: boolean) {
  const row = await q.updateApplicationFeature(db, application, feature, enabled);
  clearKeyCache();
  return row;
}

/** An application row as GraphQL's Application shows it. */
export function toApplication(row: typeof applications.$inferSelect): Application {
  const networkVerification = row.settings?.networkVerification === 'verify' ? NetworkVerificationMode.VERIFY : NetworkVerificationMode.TRUST;
  const brandCustomFields = Boolean(row.settings?.features?.includes('brandCustomFields'));
  return { ...row, plan: row.plan as PlanLevel, networkVerification, brandCustomFields };
}
