import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../../db/client.js';
import { holdTransactionLock } from '../../db/transaction-lock.js';
import type { Config } from '../../config.js';
import { createApplication, listAccounts, resolveApiKey, whitelistDomain } from './tenancy.service.js';

export interface DemoCredentials {
  accountId: number;
  applicationId: number;
  apiKey: string;
  created: boolean;
}

/**
 * The hosts the demo application whitelists when it is made: this machine's names outside
 * production, so the hosted sign-in pages open for a return page on the gateway itself (the URL
 * the banner prints); none in production, where the demo account is for trying the API only.
 */
export function demoWhitelist(env: Config['env']): string[] {
  return env === 'production' ? [] : ['localhost', '127.0.0.1'];
}

/**
 * On an empty database (embedded or PostgreSQL), creates a demo account with an enterprise application so that
 * `npm start` is immediately usable. Its key is kept in DATA_DIR (readable by this user only) so the
 * banner can show it again on the next start; a database that already has accounts is left alone.
 * `whitelist` (demoWhitelist) is given to the new application only: a demo account made before, or
 * an operator's later change to its whitelist, is never touched.
 */
export async function ensureDemoAccount(db: Database, dataDir: string, { whitelist = [] }: { whitelist?: readonly string[] } = {}): Promise<DemoCredentials | undefined> {
  const file = path.join(dataDir, 'demo-key.json');
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Omit<DemoCredentials, 'created'>;
    const caller = await resolveApiKey(db, saved.apiKey);
    // A key of another database (DATABASE_URL changed) is forgotten; this one may still be empty.
    if (caller) return { ...saved, created: false };
  }
  // Gateways starting together on one empty PostgreSQL take turns, so only the first creates it.
  const created = await db.transaction(async (tx) => {
    await holdTransactionLock(tx, 'marquee:demo-account');
    if ((await listAccounts(tx)).length > 0) return undefined;
    // createApplication opens its own transaction: inside this one, that is a savepoint.
    const made = await createApplication(tx, { accountName: 'demo', name: 'Demo application', plan: 'enterprise' });
    for (const host of whitelist) await whitelistDomain(tx, made.account.id, made.application.id, host);
    return made;
  });
  if (!created) return undefined;
  const { account, application, apiKey } = created;
  const credentials = { accountId: account.id, applicationId: application.id, apiKey };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return { ...credentials, created: true };
}
