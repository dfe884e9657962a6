import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/client.js';
import { distributionProblems } from '../../src/db/distribution.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { migrationsFolder } from '../../src/db/paths.js';
import { temporaryDirectory } from '../support/leftovers.js';

/**
 * A database made before the tenant keys (up to 0018), with rows in every linked table, moves to
 * the composite keys with its rows (docs/scaling.md, "Moving an existing database").
 */

const adminUrl = process.env.TEST_DATABASE_URL;
/** The first migration of the composite keys: the database is made up to the one before it. */
const firstMigration = '0019_tenant_keys_unique_and_unlink';

/** The migrations before `tag`, as a folder drizzle's migrator reads. */
function migrationsBefore(tag: string): string {
  const folder = temporaryDirectory('migrations');
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  const upTo = journal.entries.findIndex((entry) => entry.tag === tag);
  expect(upTo).toBeGreaterThan(0);
  const entries = journal.entries.slice(0, upTo);
  fs.mkdirSync(path.join(folder, 'meta'));
  fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const entry of entries) fs.copyFileSync(path.join(migrationsFolder, `${entry.tag}.sql`), path.join(folder, `${entry.tag}.sql`));
  return folder;
}

/** Rows of two accounts in every table the new foreign keys link, with explicit ids to name them by. */
const rows = `
  insert into accounts (id, name) overriding system value values (1, 'Alpha'), (2, 'Beta');
  insert into applications (id, account_id, name) overriding system value values (1, 1, 'web'), (2, 2, 'web');
  insert into members (id, account_id, access_token_hash, access_token_sealed, country) overriding system value
    values (101, 1, 'token-101', 'sealed', 'FR'), (102, 1, 'token-102', 'sealed', null), (201, 2, 'token-201', 'sealed', 'DE');
  insert into member_services (id, account_id, member_id, network, uid) overriding system value
    values (1001, 1, 101, 'email', 'a@example.com'), (1002, 1, 102, 'spotify', 'u-102'), (2001, 2, 201, 'email', 'b@example.com');
  insert into member_domains (account_id, service_id, member_id, domain) values (1, 1001, 101, 'example.com');
  insert into login_events (account_id, member_id, service_id, application_id, kind, network)
    values (1, 101, 1001, 1, 'register', 'email'), (1, 102, 1002, 1, 'login', 'spotify'), (2, 201, 2001, 2, 'register', 'email');
  insert into brands (id, account_id, slug, name, type) overriding system value values (301, 1, 'brand-a', 'Brand A', 'artist'), (401, 2, 'brand-b', 'Brand B', 'artist');
  insert into segments (id, account_id, brand_id, name) overriding system value values (501, 1, 301, 'Fans');
  insert into optins (account_id, member_id, kind, brand_id, segment_id)
    values (1, 101, 'brand', 301, null), (1, 102, 'segment', null, 501), (1, 101, 'global', null, null);
  insert into segment_members (account_id, segment_id, member_id) values (1, 501, 101);
  insert into activity_definitions (id, account_id, brand_id, name, type, points) overriding system value
    values (601, 1, 301, 'Listen', 'listen', 5), (701, 2, null, 'Follow', 'follow', 1);
  insert into activity_records (account_id, member_id, activity_id, brand_id, application_id, points, completed_at)
    values (1, 101, 601, 301, 1, 5, now()), (1, 102, 601, 301, 1, 5, now()), (2, 201, 701, null, 2, 1, now());
  insert into member_activity_daily (account_id, member_id, day, activity_id, brand_id, count, points)
    values (1, 101, current_date, 601, 301, 1, 5), (1, 102, current_date, 601, 301, 1, 5), (2, 201, current_date, 701, null, 1, 1);
  insert into presave_jobs (id, account_id, segment_id, application_id, items) overriding system value values (801, 1, 501, 1, '{}');
  insert into presave_results (account_id, job_id, member_id, network, status) values (1, 801, 101, 'spotify', 'saved'), (1, 801, 102, null, 'skipped');
  insert into sign_in_tokens (account_id, application_id, member_id, token_hash, expires_at) values (1, 1, 101, 'sign-in', now() + interval '1 hour');
  insert into widget_sessions (account_id, application_id, member_id, session_hash, expires_at) values (1, 1, 101, 'session', now() + interval '1 hour');
  insert into activity_queue (account_id, application_id, payload) values (1, 1, '{}');
`;

const linkedTables = [
  'members',
  'member_services',
  'member_domains',
  'login_events',
  'brands',
  'segments',
  'optins',
  'segment_members',
  'activity_definitions',
  'activity_records',
  'member_activity_daily',
  'presave_jobs',
  'presave_results',
  'sign_in_tokens',
  'widget_sessions',
  'activity_queue',
  'brand_members',
];

describe.skipIf(!adminUrl)('moving a PostgreSQL database with rows to the composite tenant keys', () => {
  const name = `marquee_test_${randomBytes(6).toString('hex')}`;
  const admin = adminUrl ? postgres(adminUrl, { max: 1, onnotice: () => {} }) : undefined;
  let client: postgres.Sql;
  let folder: string;

  beforeAll(async () => {
    await admin!.unsafe(`create database ${name}`);
    const url = new URL(adminUrl!);
    url.pathname = `/${name}`;
    client = postgres(url.toString(), { max: 1, onnotice: () => {} });
    folder = migrationsBefore(firstMigration);
    await migrate(drizzle(client), { migrationsFolder: folder });
  });

  afterAll(async () => {
    await client?.end();
    await admin?.unsafe(`drop database if exists ${name} with (force)`);
    await admin?.end();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  const counts = async () => Object.fromEntries(await Promise.all(linkedTables.map(async (table) => [table, Number((await client.unsafe(`select count(*) as n from ${table}`))[0].n)])));
  const definition = async (constraint: string) => (await client`select pg_get_constraintdef(oid) as def from pg_constraint where conname = ${constraint}`)[0]?.def as string | undefined;

  it('keeps every row, and ends with keys that distribute', { timeout: 60_000 }, async () => {
    await client.unsafe(rows);
    const before = await counts();
    expect(before.members).toBe(3);
    expect(await definition('members_pkey')).toBe('PRIMARY KEY (id)');

    await applyMigrations(drizzle(client));

    expect(await counts()).toEqual(before);
    expect(await distributionProblems(drizzle(client) as unknown as Executor)).toEqual([]);
    expect(await definition('members_pkey')).toBe('PRIMARY KEY (account_id, id)');
    expect(await definition('activity_records_member_fk')).toBe('FOREIGN KEY (account_id, member_id) REFERENCES members(account_id, id) ON DELETE CASCADE');
    expect(await definition('login_events_service_fk')).toBe('FOREIGN KEY (account_id, service_id) REFERENCES member_services(account_id, id)');
  });

  it("refuses a row that names another account's member, where a key on member_id alone took it", async () => {
    const refused = await client`insert into activity_records (account_id, member_id, activity_id, points, completed_at) values (2, 101, 701, 1, now())`.then(
      () => undefined,
      (error: { code?: string; constraint_name?: string }) => error,
    );
    expect(refused).toMatchObject({ code: '23503', constraint_name: 'activity_records_member_fk' });
  });

  it('still deletes a member with its services, events and records, and numbers new rows', async () => {
    await client`delete from members where account_id = 1 and id = 101`;
    const left = await counts();
    expect(left).toMatchObject({
      members: 2,
      member_services: 2,
      member_domains: 0,
      login_events: 2,
      optins: 1,
      segment_members: 0,
      activity_records: 2,
      presave_results: 1,
      sign_in_tokens: 0,
      widget_sessions: 0,
    });
    const [added] = await client`insert into members (account_id, access_token_hash, access_token_sealed) values (1, 'token-new', 'sealed') returning id`;
    expect(added.id).toBeGreaterThan(0);
  });
});
