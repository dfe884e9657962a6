/**
 * Fills a PostgreSQL database, through the project's own schema, with one realistic account:
 * brands, activity definitions, members with 1–3 linked services and opt-ins, and six months of
 * activity with a skewed distribution (a few very active members, a long tail, busier weekends and
 * evenings). Rows go in with COPY; the daily rollup is then built with one INSERT … SELECT.
 *
 *   npm run bench:generate -- --scale small|medium|large [--members N --activities N] [--database URL]
 *
 * Prints one JSON line with the API key, the counts and rows per second.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { hashPassword } from '../src/modules/identity/passwords.js';
import { digestToken, newAccessToken } from '../src/modules/identity/access-tokens.js';
import { createTokenCipher } from '../src/modules/identity/token-cipher.js';
import { openDatabase } from '../src/db/client.js';
import { createApplication } from '../src/modules/tenancy/tenancy.service.js';
import { benchDefaults, scales, type ScaleName } from './settings.js';
import { createRandom } from './random.js';

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'small' },
    members: { type: 'string' },
    activities: { type: 'string' },
    database: { type: 'string', default: benchDefaults.databaseUrl },
    seed: { type: 'string', default: '42' },
  },
});

const scale = scales[args.scale as ScaleName];
if (!scale) throw new Error(`--scale must be one of ${Object.keys(scales).join(', ')}`);
const memberCount = Number(args.members ?? scale.members);
const activityCount = Number(args.activities ?? scale.activities);
const random = createRandom(Number(args.seed));
const days = 182;
const now = Date.now();

const countries = ['US', 'US', 'US', 'GB', 'GB', 'DE', 'FR', 'BR', 'MX', 'ES', 'IT', 'CA', 'AU', 'NL', 'SE', 'JP'];
const networks = ['spotify', 'youtube', 'facebook', 'twitter', 'deezer', 'instagram', 'soundcloud'];
const brandTypes = ['Music', 'Music', 'Music', 'Sport', 'Consumer', 'Movie', 'TV', 'Influencer'];
/** Kinds of activity each brand tracks: type, network, points, one-time. */
const kinds = [
  { type: 'Listened', service: 'spotify', points: 2, oneTime: false, weight: 10 },
  { type: 'Watched', service: 'youtube', points: 3, oneTime: false, weight: 5 },
  { type: 'Shared', service: 'twitter', points: 5, oneTime: false, weight: 2 },
  { type: 'Visited', service: null, points: 1, oneTime: false, weight: 3 },
  { type: 'Followed', service: 'spotify', points: 10, oneTime: true, weight: 0 },
] as const;

/** COPY text format: tabs separate, `\N` is null, backslashes and control characters escaped. */
function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

async function copyRows(sql: postgres.Sql, table: string, columns: string[], rows: Iterable<unknown[]>): Promise<number> {
  let count = 0;
  const lines = function* () {
    let batch: string[] = [];
    for (const row of rows) {
      batch.push(row.map(copyField).join('\t'));
      count += 1;
      if (batch.length === 5000) {
        yield `${batch.join('\n')}\n`;
        batch = [];
      }
    }
    if (batch.length) yield `${batch.join('\n')}\n`;
  };
  const writable = await sql.unsafe(`copy ${table} (${columns.join(', ')}) from stdin`).writable();
  await pipeline(Readable.from(lines()), writable);
  return count;
}

async function ensureDatabase(url: string) {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  const [exists] = await client`select 1 from pg_database where datname = ${name}`;
  if (!exists) await client.unsafe(`create database "${name}"`);
  await client.end();
}

/** Index of the member doing the next action: u³ puts most actions on the first few percent. */
const activeMemberIndex = () => Math.floor(memberCount * random() ** 3);

/** A completion time in the last six months: weekends busier, evenings busiest. */
function completionTime(): Date {
  for (;;) {
    const dayOffset = Math.floor(random() * days);
    const date = new Date(now - dayOffset * 86_400_000);
    const weekday = date.getUTCDay();
    const dayWeight = weekday === 0 || weekday === 6 ? 1 : weekday === 5 ? 0.85 : 0.6;
    if (random() > dayWeight) continue;
    const hour = Math.min(23, Math.floor(8 + random() * 10 + random() * 6));
    date.setUTCHours(hour, Math.floor(random() * 60), Math.floor(random() * 60), 0);
    if (date.getTime() < now) return date;
  }
}

async function main() {
  await ensureDatabase(args.database!);
  const handle = await openDatabase({ kind: 'postgres', url: args.database!, readUrl: undefined, poolSize: 4 });
  const sql = postgres(args.database!, { max: 4, onnotice: () => {} });
  const started = performance.now();
  const cipher = createTokenCipher(benchDefaults.secretKey);
  const created = await createApplication(handle.db, { accountName: `bench-${Date.now()}`, name: 'bench', plan: 'enterprise' });
  const accountId = created.account.id;
  let rows = 0;

  // Brands, then the activities each tracks.
  const brandCount = Math.max(10, Math.round(Math.sqrt(memberCount) / 5));
  rows += await copyRows(sql, 'brands', ['account_id', 'slug', 'name', 'type'], Array.from({ length: brandCount }, (_, i) => [accountId, `brand-${i + 1}`, `Brand ${i + 1}`, random.pick(brandTypes)]));
  const brandIds = (await sql`select id from brands where account_id = ${accountId} order by id`).map((row) => row.id as number);
  const definitionRows = brandIds.flatMap((brandId) => kinds.map((kind) => [accountId, brandId, `${kind.type} (brand ${brandId})`, kind.type, kind.service, kind.points, kind.oneTime]));
  rows += await copyRows(sql, 'activity_definitions', ['account_id', 'brand_id', 'name', 'type', 'service', 'points', 'one_time'], definitionRows);
  type Definition = { id: number; brand_id: number; type: string; service: string | null; points: number; one_time: boolean };
  const definitions = await sql<Definition[]>`select id, brand_id, type, service, points, one_time from activity_definitions where account_id = ${accountId} order by id`;
  const byBrand = new Map<number, Definition[]>();
  for (const definition of definitions) byBrand.set(definition.brand_id, [...(byBrand.get(definition.brand_id) ?? []), definition]);

  // Members: every one can sign in by email with the same password (one hash: argon2 is slow on purpose).
  const passwordHash = await hashPassword(benchDefaults.password);
  rows += await copyRows(
    sql,
    'members',
    ['account_id', 'email', 'first_name', 'surname', 'country', 'gender', 'access_token_hash', 'access_token_sealed', 'created_at', 'last_login_at'],
    (function* () {
      for (let i = 0; i < memberCount; i += 1) {
        const token = newAccessToken();
        const joined = new Date(now - random() * 730 * 86_400_000);
        const lastLogin = random() < 0.4 ? new Date(now - random() * 30 * 86_400_000) : null;
        yield [accountId, `fan${i}@bench.example`, `Fan`, `${i}`, random.pick(countries), random.pick(['M', 'F', 'Other']), digestToken(token), cipher.seal(token), joined, lastLogin && lastLogin > joined ? lastLogin : null];
      }
    })(),
  );
  const memberIds = (await sql`select id from members where account_id = ${accountId} order by id`).map((row) => row.id as number);
  // Activity is skewed by a shuffled rank, so the busiest members are spread over the id range.
  const byRank = random.shuffle([...memberIds]);

  rows += await copyRows(
    sql,
    'member_services',
    ['account_id', 'member_id', 'network', 'uid', 'username', 'password_hash', 'token_sealed', 'paid_account', 'valid'],
    (function* () {
      for (const [index, memberId] of memberIds.entries()) {
        yield [accountId, memberId, 'email', `fan${index}@bench.example`, null, passwordHash, null, false, true];
        const extra = random.shuffle([...networks]).slice(0, Math.floor(random() * 3));
        for (const network of extra) {
          yield [accountId, memberId, network, `${network}-${memberId}`, `${network}user${memberId}`, null, cipher.seal(`tok-${memberId}`), random() < 0.2, random() < 0.95];
        }
      }
    })(),
  );

  // Opt-ins: about a third of the members opt into their favourite brand.
  // Each member's favourite brand is fixed by a hash of the id; squaring it makes a few brands popular.
  const favourite = (memberId: number) => brandIds[Math.floor(brandIds.length * (((memberId * 2654435761) % 2 ** 32) / 2 ** 32) ** 2)];
  rows += await copyRows(
    sql,
    'optins',
    ['account_id', 'member_id', 'kind', 'brand_id', 'opted_in_at'],
    (function* () {
      for (const memberId of memberIds) if (random() < 0.33) yield [accountId, memberId, 'brand', favourite(memberId), new Date(now - random() * 365 * 86_400_000)];
    })(),
  );

  // Six months of activity, then one follow for some members (one-time activities are unique per member).
  const recordsStarted = performance.now();
  let records = await copyRows(
    sql,
    'activity_records',
    ['account_id', 'member_id', 'activity_id', 'brand_id', 'service', 'points', 'one_time', 'link', 'content', 'completed_at', 'recorded_at'],
    (function* () {
      const weighted = kinds.filter((kind) => !kind.oneTime).flatMap((kind) => Array.from({ length: kind.weight }, () => kind.type));
      for (let i = 0; i < activityCount; i += 1) {
        const memberId = byRank[activeMemberIndex()];
        const brandId = random() < 0.7 ? favourite(memberId) : random.pick(brandIds);
        const type = random.pick(weighted);
        const definition = byBrand.get(brandId)!.find((candidate) => candidate.type === type)!;
        const completed = completionTime();
        const content = type === 'Listened' ? { track: `Track ${1 + Math.floor(random() * 500)}`, artist: `Brand ${brandId}` } : null;
        yield [accountId, memberId, definition.id, brandId, definition.service, definition.points, false, null, content, completed, new Date(completed.getTime() + 1000)];
      }
    })(),
  );
  records += await copyRows(
    sql,
    'activity_records',
    ['account_id', 'member_id', 'activity_id', 'brand_id', 'service', 'points', 'one_time', 'completed_at', 'recorded_at'],
    (function* () {
      for (const memberId of memberIds) {
        if (random() >= 0.05) continue;
        const brandId = favourite(memberId);
        const definition = byBrand.get(brandId)!.find((candidate) => candidate.one_time)!;
        const completed = completionTime();
        yield [accountId, memberId, definition.id, brandId, definition.service, definition.points, true, completed, completed];
      }
    })(),
  );
  rows += records;
  const recordSeconds = (performance.now() - recordsStarted) / 1000;

  const rollupStarted = performance.now();
  const rollup = await sql`
    insert into member_activity_daily (account_id, member_id, day, activity_id, brand_id, service, one_time, count, points)
    select account_id, member_id, (completed_at at time zone 'UTC')::date, activity_id, brand_id, service, bool_or(one_time), count(*), sum(points)
    from activity_records where account_id = ${accountId}
    group by account_id, member_id, (completed_at at time zone 'UTC')::date, activity_id, brand_id, service`;
  const rollupSeconds = (performance.now() - rollupStarted) / 1000;
  // Vacuum sets the visibility map, so the rollup's covering indexes serve index-only scans at once.
  await sql`vacuum analyze`;

  const seconds = (performance.now() - started) / 1000;
  console.log(
    JSON.stringify({
      database: args.database,
      accountId,
      apiKey: created.apiKey,
      members: memberIds.length,
      brands: brandIds.length,
      activityRecords: records,
      rollupRows: rollup.count,
      rows,
      seconds: Math.round(seconds * 10) / 10,
      rowsPerSecond: Math.round(rows / seconds),
      recordsPerSecond: Math.round(records / recordSeconds),
      rollupSeconds: Math.round(rollupSeconds * 10) / 10,
    }),
  );
  await sql.end();
  await handle.close();
}

await main();
