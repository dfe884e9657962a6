import 'reflect-metadata';
import fs from 'node:fs';
import { Presets, SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig, loadEnvFile, type Config } from './config.js';
import { openDatabase, type Database, type DatabaseHandle } from './db/client.js';
import { citusRole, distribute, placementProblems } from './db/citus.js';
import { lockDataDir } from './db/lock.js';
import {
  createAccount,
  createApplication,
  createApplicationKey,
  createGlobalKey,
  findAccountById,
  findAccountByName,
  listAccounts,
  listApplications,
  listKeys,
  parseNetworkVerification,
  parsePlan,
  revokeApiKey,
  setApplicationPlan,
  setApplicationFeature,
  setNetworkVerification,
} from './modules/tenancy/tenancy.service.js';
import type { EmailSettings } from './db/schema/index.js';
import { readSenderName, readTemplate } from './modules/email/templates.js';
import { findApplicationById } from './modules/tenancy/tenancy.queries.js';
import { mergeApplicationSettings } from './modules/widget/widget.queries.js';
import { parseSignInErrors } from './modules/widget/widget.signin.js';
import { readLook, shownLook } from './modules/widget/look.js';
import { withSecretKey } from './secret.js';
import { recordAudit, systemOrigin } from './modules/audit/audit.js';
import { addStaff, inviteLink, listStaff, removeStaff, staffIdByEmail } from './modules/staff/staff.service.js';
import { exportAccountToFile, importAccountFromFile } from './modules/account-transfer/account-files.js';
import { exportRows, type TransferProgress } from './modules/account-transfer/transfer-format.js';
import { expireRecords, minRetentionMonths, recordRetention, setRecordRetention } from './modules/retention/retention.js';
import type { SeedSize } from './demo-seed.js';

/**
 * The operators' tool: accounts, applications, keys and the demo account's data. It opens the same database as the server
 * (DATABASE_URL, or the embedded one in DATA_DIR) and applies pending migrations first.
 * `--json` prints one JSON value on stdout for scripts; otherwise a readable line or table.
 */
type Print = (value: unknown, text: () => string) => void;

function positiveId(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

/** `on`/`off` (also 1/0, true/false, yes/no), as a switch option reads. */
function onOff(value: string): boolean {
  const word = value.trim().toLowerCase();
  if (['on', '1', 'true', 'yes'].includes(word)) return true;
  if (['off', '0', 'false', 'no'].includes(word)) return false;
  throw new InvalidArgumentError('expected on or off');
}

/** What the CLI is doing, on stderr and only for a person at a terminal: stdout stays the answer. */
/** What a command changes in an account is in its audit log, by the actor system `cli`. */
const cli = systemOrigin('cli');

function recordSettings(db: Database, application: { accountId: number; id: number }, setting: string): Promise<void> {
  return recordAudit(db, application.accountId, cli, { action: 'application.settings', target: { type: 'application', id: String(application.id) }, details: { setting } });
}

function note(message: string): void {
  if (process.stderr.isTTY) console.error(message);
}

/** A progress bar on stderr, at a terminal only, for a transfer's rows; its table named as it goes. */
function progressBar(doing: string): { update: TransferProgress; stop: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar({ format: `${doing} [{bar}] {percentage}% | {value}/{total} rows | {table}`, stream: process.stderr, etaBuffer: 50 }, Presets.shades_classic);
  let started = false;
  return {
    update: ({ table, rows, total }) => {
      if (!started) bar.start(total, 0, { table });
      started = true;
      bar.update(rows, { table });
    },
    stop: () => bar.stop(),
  };
}

async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  return withDatabaseHandle((database) => work(database.db));
}

async function withDatabaseHandle<T>(work: (database: DatabaseHandle, config: Config) => Promise<T>): Promise<T> {
  loadEnvFile();
  const config = loadConfig();
  const release = config.database.kind === 'pglite' ? lockDataDir(config.dataDir, 'the CLI') : () => {};
  const started = Date.now();
  // Opening PGlite is most of a command's time (its WebAssembly start and recovery, about 2 s).
  note(config.database.kind === 'pglite' ? `opening the embedded database in ${config.database.dataDir}…` : 'connecting to DATABASE_URL…');
  const database = await openDatabase(config.database, { progress: (message) => note(message) });
  note(`database ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  try {
    return await work(database, config);
  } finally {
    await database.close();
    release();
  }
}

async function accountIdOf(db: Database, reference: string): Promise<number> {
  const account = /^\d+$/.test(reference) ? await findAccountById(db, Number(reference)) : await findAccountByName(db, reference);
  if (!account) throw new Error(`No account ${reference}.`);
  return account.id;
}

function printer(options: { json?: boolean }): Print {
  if (options.json && npmPrintedItsBanner()) console.error('note: npm printed its own lines on stdout before the JSON; run `npm run -s cli -- …` for the JSON alone');
  return (value, text) => console.log(options.json ? JSON.stringify(value) : text());
}

/** Started by `npm run cli` without `-s`: npm wrote `> marquee@… cli` and the command on stdout first. */
function npmPrintedItsBanner(): boolean {
  return process.env.npm_lifecycle_event === 'cli' && process.env.npm_config_loglevel !== 'silent';
}

const program = new Command('marquee').description('Marquee administration').showHelpAfterError();

const account = program.command('account').description('accounts');
account
  .command('create')
  .requiredOption('--name <name>', 'account name (unique)')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const row = await createAccount(db, options.name);
      printer(options)({ accountId: row.id, name: row.name }, () => `account ${row.id} ${row.name}`);
    }),
  );
account
  .command('list')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const rows = await listAccounts(db);
      printer(options)(
        rows.map((row) => ({ accountId: row.id, name: row.name })),
        () => rows.map((row) => `${row.id}\t${row.name}`).join('\n'),
      );
    }),
  );

account
  .command('retention')
  .description('how long the account keeps its activity records; without --months or --keep-all, the current setting (docs/operations.md, "Record retention")')
  .requiredOption('--account <name|id>', 'account name or id')
  .option('--months <n>', `keep the records of this many months (at least ${minRetentionMonths})`, positiveId)
  .option('--keep-all', 'keep every record (the default)')
  .option('--now', "remove the records past the retention now, rather than at the gateways' next hourly pass")
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      if (options.months !== undefined && options.keepAll) throw new Error('Give --months or --keep-all, not both.');
      const accountId = await accountIdOf(db, options.account);
      const changing = options.months !== undefined || options.keepAll;
      const months = changing ? await setRecordRetention(db, accountId, options.keepAll ? null : options.months, cli) : await recordRetention(db, accountId);
      let removed: number | undefined;
      if (options.now && months !== null) {
        removed = 0;
        for (let done = false; !done;) {
          const outcome = await expireRecords(db, accountId, months);
          removed += outcome.removed;
          done = outcome.done;
          note(`removed ${removed} records${outcome.before ? ` completed before ${outcome.before.toISOString()}` : ''}`);
        }
      }
      const setting = months === null ? 'keeps every record' : `keeps ${months} months of records`;
      printer(options)({ accountId, months, removed }, () => `account ${accountId} ${setting}` + (removed === undefined ? '' : `; ${removed} records removed now`));
    }),
  );

account
  .command('export')
  .description('write the account, with everything of it, to a file another database imports (docs/operations.md, "Moving an account")')
  .requiredOption('--account <name|id>', 'account name or id')
  .requiredOption('--out <file>', 'the file to write: gzip-compressed JSON lines, readable by you alone; refused when it exists')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const accountId = await accountIdOf(db, options.account);
      const bar = progressBar('exporting');
      const header = await exportAccountToFile(db, accountId, options.out, { progress: bar.update, origin: cli }).finally(bar.stop);
      const rows = exportRows(header);
      printer(options)(
        { accountId, name: header.account.name, file: options.out, rows, counts: header.counts },
        () => `account ${accountId} ${header.account.name}: ${rows} rows written to ${options.out}`,
      );
    }),
  );
account
  .command('import')
  .description('store an account exported by `account export` in this database, in one transaction; refused when the database holds an account of its name')
  .requiredOption('--in <file>', 'the file `account export` wrote')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const bar = progressBar('importing');
      const summary = await importAccountFromFile(db, options.in, { progress: bar.update, origin: cli }).finally(bar.stop);
      printer(options)(summary, () => `account ${summary.accountId} ${summary.name} imported (id ${summary.exportedId} where it was exported): ${summary.rows} rows`);
    }),
  );

const app = program.command('app').description('applications');
app
  .command('create')
  .requiredOption('--account <name>', 'account name; created when new')
  .requiredOption('--name <name>', 'application name')
  .option('--plan <plan>', 'basic | advanced | enterprise', 'basic')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const created = await createApplication(db, { accountName: options.account, name: options.name, plan: parsePlan(options.plan) }, cli);
      printer(options)(
        { accountId: created.account.id, applicationId: created.application.id, apiKey: created.apiKey },
        () => `application ${created.application.id} in account ${created.account.id}\nAPI key (shown once): ${created.apiKey}`,
      );
    }),
  );
app
  .command('list')
  .requiredOption('--account <name or id>', 'account')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const rows = await listApplications(db, await accountIdOf(db, options.account));
      const value = rows.map((row) => ({ applicationId: row.id, name: row.name, plan: row.plan }));
      printer(options)(value, () => rows.map((row) => `${row.id}\t${row.plan}\t${row.name}`).join('\n'));
    }),
  );
app
  .command('plan')
  .requiredOption('--application <id>', 'application id', positiveId)
  .requiredOption('--plan <plan>', 'basic | advanced | enterprise')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const row = await setApplicationPlan(db, options.application, parsePlan(options.plan));
      if (!row) throw new Error(`No application ${options.application}.`);
      await recordSettings(db, row, 'plan');
      printer(options)({ applicationId: row.id, plan: row.plan }, () => `application ${row.id} is now ${row.plan}`);
    }),
  );

app
  .command('network-verification')
  .description('how network tokens given to registration and login are trusted (docs/networks.md)')
  .requiredOption('--application <id>', 'application id', positiveId)
  .requiredOption('--mode <mode>', 'verify (each token checked with its network) | trust (the application vouches)')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const row = await setNetworkVerification(db, { applicationId: options.application }, parseNetworkVerification(options.mode));
      if (!row) throw new Error(`No application ${options.application}.`);
      await recordSettings(db, row, 'networkVerification');
      const mode = row.settings.networkVerification;
      printer(options)({ applicationId: row.id, networkVerification: mode }, () => `application ${row.id} network verification: ${mode}`);
    }),
  );

app
  .command('sign-in-errors')
  .description('how the on-page sign-in refuses an email and password (docs/widget.md, "The on-page flow")')
  .requiredOption('--application <id>', 'application id', positiveId)
  .requiredOption('--mode <mode>', 'distinct (13 for an unknown address, 18 for a wrong password, as AE) | uniform (18 for both)')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const mode = parseSignInErrors(options.mode);
      const application = await findApplicationById(db, options.application);
      if (!application) throw new Error(`No application ${options.application}.`);
      await mergeApplicationSettings(db, application.accountId, application.id, { signInErrors: mode });
      await recordSettings(db, application, 'signInErrors');
      printer(options)({ applicationId: application.id, signInErrors: mode }, () => `application ${application.id} sign-in errors: ${mode}`);
    }),
  );

app
  .command('email')
  .description('the sender name and templates of verification and password-reset emails (docs/members.md, "Emails"); what is left out returns to the default')
  .requiredOption('--application <id>', 'application id', positiveId)
  .option('--sender-name <name>', "the sender's display name (the application's name by default)")
  .option('--verify-subject <text>', 'subject of the verification email')
  .option('--verify-body-file <file>', 'plain-text body of the verification email; must contain {{link}}')
  .option('--reset-subject <text>', 'subject of the password-reset email')
  .option('--reset-body-file <file>', 'plain-text body of the password-reset email; must contain {{link}}')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const template = (kind: 'verify' | 'reset', subject: string | undefined, file: string | undefined, param: 'verifyEmail' | 'resetPassword') => {
        if (subject === undefined && file === undefined) return undefined;
        if (subject === undefined || file === undefined) throw new Error(`Give both --${kind}-subject and --${kind}-body-file.`);
        return readTemplate({ subject, body: fs.readFileSync(file, 'utf8') }, param);
      };
      const email: EmailSettings = {};
      const senderName = options.senderName === undefined ? undefined : readSenderName(options.senderName);
      if (senderName) email.senderName = senderName;
      const verifyEmail = template('verify', options.verifySubject, options.verifyBodyFile, 'verifyEmail');
      if (verifyEmail) email.verifyEmail = verifyEmail;
      const resetPassword = template('reset', options.resetSubject, options.resetBodyFile, 'resetPassword');
      if (resetPassword) email.resetPassword = resetPassword;
      const application = await findApplicationById(db, options.application);
      if (!application) throw new Error(`No application ${options.application}.`);
      await mergeApplicationSettings(db, application.accountId, application.id, { email });
      await recordSettings(db, application, 'email');
      printer(options)({ applicationId: application.id, email }, () => `application ${application.id} email settings: ${Object.keys(email).join(', ') || 'the defaults'}`);
    }),
  );

app
  .command('look')
  .description('the hosted sign-in pages\' title, colours, logo and footer link (docs/widget.md, "The pages\' look"); what is left out returns to the default')
  .requiredOption('--application <id>', 'application id', positiveId)
  .option('--title <text>', "the name the pages show (the application's name by default)")
  .option('--accent-color <#rrggbb>', 'buttons and links')
  .option('--background-color <#rrggbb>', 'the page around the form')
  .option('--logo-url <url>', "an https URL on one of the application's whitelisted domains")
  .option('--footer-link-url <url>', 'an https URL on a whitelisted domain, linked below the form')
  .option('--footer-link-text <text>', 'the footer link\'s text ("Privacy policy" by default)')
  .option('--show', 'print the current look and change nothing')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const application = await findApplicationById(db, options.application);
      if (!application) throw new Error(`No application ${options.application}.`);
      let stored = application.settings.signInPageLook;
      if (!options.show) {
        const app = { accountId: application.accountId, applicationId: application.id };
        stored = await readLook(db, app, {
          title: options.title,
          accentColor: options.accentColor,
          backgroundColor: options.backgroundColor,
          logoUrl: options.logoUrl,
          footerLinkUrl: options.footerLinkUrl,
          footerLinkText: options.footerLinkText,
        });
        await mergeApplicationSettings(db, application.accountId, application.id, { signInPageLook: stored });
        await recordSettings(db, application, 'signInPageLook');
      }
      const shown = shownLook(stored, application.name);
      printer(options)({ applicationId: application.id, signInPageLook: shown }, () =>
        [`application ${application.id} sign-in page look:`, ...Object.entries(shown).map(([name, value]) => `  ${name}: ${value ?? '(none)'}`)].join('\n'),
      );
    }),
  );

app
  .command('brand-custom-fields')
  .description('switch custom fields on brands on or off for an application (enterprise; docs/brands.md)')
  .requiredOption('--application <id>', 'application id', positiveId)
  .requiredOption('--enabled <on|off>', 'on | off', onOff)
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const row = await setApplicationFeature(db, { applicationId: options.application }, 'brandCustomFields', options.enabled);
      if (!row) throw new Error(`No application ${options.application}.`);
      await recordSettings(db, row, 'brandCustomFields');
      const on = Boolean(row.settings.features?.includes('brandCustomFields'));
      const planNote = on && row.plan !== 'enterprise' ? ` (the application's plan is ${row.plan}: custom fields need enterprise)` : '';
      printer(options)({ applicationId: row.id, brandCustomFields: on }, () => `application ${row.id} brand custom fields: ${on ? 'on' : 'off'}${planNote}`);
    }),
  );

const key = program.command('key').description('API keys');
key
  .command('create')
  .requiredOption('--application <id>', 'application id', positiveId)
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const { keyId, apiKey } = await createApplicationKey(db, options.application, cli);
      printer(options)({ keyId, apiKey }, () => `key ${keyId}\nAPI key (shown once): ${apiKey}`);
    }),
  );
key
  .command('global')
  .description('issue the account-wide key (usage totals); replaces the previous one')
  .requiredOption('--account <id>', 'account id', positiveId)
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const { keyId, apiKey } = await createGlobalKey(db, options.account, cli);
      printer(options)({ apiKey }, () => `global key ${keyId}\nAPI key (shown once): ${apiKey}`);
    }),
  );
key
  .command('list')
  .requiredOption('--account <name or id>', 'account')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const rows = await listKeys(db, await accountIdOf(db, options.account));
      const value = rows.map((row) => ({
        keyId: row.id,
        applicationId: row.applicationId,
        global: row.applicationId === null,
        prefix: row.prefix,
        createdAt: row.createdAt.toISOString(),
        revokedAt: row.revokedAt?.toISOString() ?? null,
      }));
      printer(options)(value, () =>
        value.map((row) => `${row.keyId}\t${row.global ? 'global' : `app ${row.applicationId}`}\t${row.prefix}…\t${row.revokedAt ? `revoked ${row.revokedAt}` : 'live'}`).join('\n'),
      );
    }),
  );
key
  .command('revoke')
  .argument('<keyId>', 'key id', positiveId)
  .option('--json', 'print JSON')
  .action((keyId: number, options) =>
    withDatabase(async (db) => {
      const revoked = await revokeApiKey(db, keyId, cli);
      if (!revoked) throw new Error(`No live key ${keyId}.`);
      printer(options)({ keyId, revoked: true }, () => `key ${keyId} revoked`);
    }),
  );

const staff = program.command('staff').description("the console's staff (docs/console.md)");
staff
  .command('add')
  .description('add a staff member to an account: with --password-stdin the password is read from standard input, otherwise a one-time sign-in link is printed')
  .requiredOption('--account <name or id>', 'account')
  .requiredOption('--email <email>', "the staff member's email address")
  .requiredOption('--role <role>', 'owner | admin | support | analyst')
  .option('--password-stdin', 'read the password from standard input (one line)')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabaseHandle(async (database, config) => {
      const db = database.db;
      const accountId = await accountIdOf(db, options.account);
      const password = options.passwordStdin ? await passwordFromStdin() : undefined;
      const added = await addStaff(db, accountId, { email: options.email, role: options.role, password }, cli);
      // The gateway's public address, as the hosted pages name it; without PUBLIC_URL, the local one.
      const link = added.inviteToken ? inviteLink(config.publicUrl ?? `http://localhost:${config.port}`, added.inviteToken) : null;
      printer(options)(
        { accountId, staffId: added.staffId, email: added.email, role: added.role, link, linkExpiresAt: added.inviteExpiresAt?.toISOString() ?? null },
        () =>
          `staff ${added.staffId} ${added.email} is ${added.role} of account ${accountId}
` +
          (link
            ? `one-time sign-in link (valid 7 days, shown once): ${link}`
            : password === undefined
              ? 'they already sign in to another account: they sign in with their password and choose this one'
              : 'they sign in at /console with this password'),
      );
    }),
  );
staff
  .command('list')
  .requiredOption('--account <name or id>', 'account')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const rows = await listStaff(db, await accountIdOf(db, options.account));
      const value = rows.map((row) => ({
        staffId: row.staffId,
        email: row.email,
        role: row.role,
        addedAt: row.addedAt.toISOString(),
        passwordSet: row.passwordSet,
        secondFactorEnabled: row.secondFactorEnabled,
      }));
      printer(options)(value, () => value.map((row) => `${row.staffId}\t${row.role}\t${row.email}${row.passwordSet ? '' : '\t(link not used yet)'}`).join('\n'));
    }),
  );
staff
  .command('remove')
  .description('remove a staff member from an account, ending their sessions there (the last owner stays)')
  .requiredOption('--account <name or id>', 'account')
  .requiredOption('--email <email>', "the staff member's email address")
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      const accountId = await accountIdOf(db, options.account);
      const staffId = await staffIdByEmail(db, accountId, options.email);
      const removed = await removeStaff(db, accountId, staffId, cli);
      printer(options)({ accountId, staffId, email: removed.email, removed: true }, () => `staff ${staffId} ${removed.email} removed from account ${accountId}`);
    }),
  );

/** The password given on standard input: its first line, without the line ending. */
async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) console.error('password (then Enter, and Ctrl-D):');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/, 1)[0];
}

/** As demo-seed.ts's defaultSeedSize, which is loaded only when the command runs. */
const seedSize: SeedSize = { members: 40, records: 600, days: 42 };

const demo = program.command('demo').description("the demo account's data");
demo
  .command('seed')
  .description('fill the demo account with brands, activities, members, opt-ins and records over the last weeks, for the dashboard; refused when it has them already')
  .option('--members <n>', 'members to register', positiveId, seedSize.members)
  .option('--records <n>', 'records to store', positiveId, seedSize.records)
  .option('--days <n>', 'how many days back the records go', positiveId, seedSize.days)
  .option('--json', 'print JSON (progress goes to stderr)')
  .action((options) =>
    withDatabaseHandle(async (database, config) => {
      // Progress on stderr, so stdout holds the summary alone with --json.
      const progress = (message: string) => console.error(message);
      // Its own bundle (scripts/build.mjs): the gateway's code is loaded by this command only.
      const { seedDemoAccount } = await import('./demo-seed.js');
      const summary = await seedDemoAccount(withSecretKey(config), database, { size: { members: options.members, records: options.records, days: options.days }, progress });
      printer(options)(
        summary,
        () =>
          `demo account ${summary.accountId} seeded: ${summary.brands.length} brands, ${summary.activities} activities, ${summary.members} members, ${summary.optIns} opt-ins, ${summary.records} records\nOpen /dashboard?brand=${summary.brands[0].id}&window=3m with the demo key.`,
      );
    }),
  );

const database = program.command('db').description('the database');
database
  .command('distribute')
  .description('distribute the tables on a Citus coordinator (docs/scaling.md), after applying the migrations')
  .option('--json', 'print JSON')
  .action((options) =>
    withDatabase(async (db) => {
      if ((await citusRole(db)) !== 'coordinator') throw new Error('DATABASE_URL is not a Citus coordinator: the citus extension is not in this database (docs/scaling.md, "Distributing on Citus").');
      const placed = await distribute(db);
      const problems = await placementProblems(db);
      if (problems.length) throw new Error(`some tables are still not placed:\n  ${problems.join('\n  ')}`);
      printer(options)(
        { placed },
        () =>
          (placed.length ? placed.map((placement) => `${placement.table}: ${placement.kind}`).join('\n') + `\n${placed.length} tables placed` : 'every table was already placed') +
          "\nthe database's session settings (jit, parallel workers) set on every node",
      );
    }),
  );

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
