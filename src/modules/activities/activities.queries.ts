import { and, asc, eq, inArray, isNull, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { arrayLiteral } from '../../db/arrays.js';
import type { Executor, Transaction } from '../../db/client.js';
import { hasSqlState } from '../../db/errors.js';
import { executeRows } from '../../db/rows.js';
import { columnsOf, preparedRowsOf } from '../../db/statements.js';
import { statementRuns } from '../../db/value-rows.js';
import { activityDefinitions, activityRecords, brands, memberActivityDaily, members, memberServices, scoreWindows } from '../../db/schema/index.js';
import { within, type ResolvedWindow } from '../../filters/window.js';
import { formatDay } from '../../lib/time.js';
import { holdCoverageLock } from '../score-windows/score-windows.locks.js';
import { countRecordsIn } from '../score-windows/score-windows.queries.js';
import { addBrandMembers, beforeClaimState, gateColumns, gateResult, keptOfInserted, markDaysStale, recheckBrandMembers, recordGate } from '../kept-data/kept-writes.js';

export type DefinitionRow = typeof activityDefinitions.$inferSelect;
export type NewDefinitionRow = typeof activityDefinitions.$inferInsert;
export type RecordRow = typeof activityRecords.$inferSelect;
export type NewRecordRow = typeof activityRecords.$inferInsert;

// ——— definitions ———

export function listDefinitions(db: Executor, accountId: number, brandId?: number) {
  return db
    .select()
    .from(activityDefinitions)
    .where(and(eq(activityDefinitions.accountId, accountId), isNull(activityDefinitions.deletedAt), brandId ? eq(activityDefinitions.brandId, brandId) : undefined))
    .orderBy(asc(activityDefinitions.id));
}

/** Definitions by id, deleted ones included (old records still name them). */
export function definitionsByIds(db: Executor, accountId: number, ids: readonly number[]) {
  return db
    .select()
    .from(activityDefinitions)
    .where(and(eq(activityDefinitions.accountId, accountId), inArray(activityDefinitions.id, [...ids])));
}

export async function findLiveDefinition(db: Executor, accountId: number, id: number) {
  const [row] = await db
    .select()
    .from(activityDefinitions)
    .where(and(eq(activityDefinitions.accountId, accountId), eq(activityDefinitions.id, id), isNull(activityDefinitions.deletedAt)));
  return row;
}

export async function insertDefinition(db: Executor, values: NewDefinitionRow) {
  const [row] = await db.insert(activityDefinitions).values(values).returning();
  return row;
}

export async function updateDefinition(db: Executor, accountId: number, id: number, values: Partial<NewDefinitionRow>) {
  const [row] = await db
    .update(activityDefinitions)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(activityDefinitions.accountId, accountId), eq(activityDefinitions.id, id), isNull(activityDefinitions.deletedAt)))
    .returning();
  return row;
}

/** Live brand ids of the account among `ids`. */
export async function existingBrandIds(db: Executor, accountId: number, ids: readonly number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db
    .select({ id: brands.id })
    .from(brands)
    .where(and(eq(brands.accountId, accountId), inArray(brands.id, [...ids]), isNull(brands.deletedAt)));
  return new Set(rows.map((row) => row.id));
}

// ——— members of records ———

/** Member ids as recorded against: a merged member's id resolves to its survivor. */
export async function resolveMemberIds(db: Executor, accountId: number, ids: readonly number[]): Promise<Map<number, number>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: members.id, mergedIntoId: members.mergedIntoId })
    .from(members)
    .where(and(eq(members.accountId, accountId), inArray(members.id, [...ids])));
  return new Map(rows.map((row) => [row.id, row.mergedIntoId ?? row.id]));
}

/** What checking a batch of records needs from the account, looked up in one statement. */
export interface RecordLookups {
  /** Definitions by id, deleted ones included (`deleted`), with what a record copies from them. */
  definitions: Map<number, Pick<DefinitionRow, 'id' | 'brandId' | 'service' | 'points' | 'oneTime'> & { deleted: boolean }>;
  /** Member ids as recorded against: a merged member's id resolves to its survivor. */
  members: Map<number, number>;
  /** Members by partner reference (`code \u0000 id`). */
  partners: Map<string, number>;
  /** Live brand ids among those asked for. */
  brands: Set<number>;
}

export const partnerKey = (ref: { code: string; id: string }) => `${ref.code}\u0000${ref.id}`;

/**
 * The definitions, members (by id or partner reference) and live brands a batch names, in one
 * round trip: each list is one array parameter, each answer one JSON value.
 */
export async function recordLookups(
  db: Executor,
  accountId: number,
  asked: { activityIds: readonly number[]; memberIds: readonly number[]; partnerRefs: readonly { code: string; id: string }[]; brandIds: readonly number[] },
): Promise<RecordLookups> {
  // Each list is read through a scalar subquery (an InitPlan), so the planner never sees its
  // length: a plan made for the values costs the same as the generic one, and the prepared
  // statement keeps its generic plan. With the lists visible, a batch of a few records always
  // looked cheaper to plan afresh, and planning was three quarters of the statement's time.
  const ids = (values: readonly number[]) => sql`(select ${arrayLiteral([...new Set(values)])}::int[])::int[]`;
  const texts = (values: readonly string[]) => sql`(select ${arrayLiteral(values)}::text[])::text[]`;
  const [row] = await preparedRowsOf<{ definitions: string; members: string; partners: string; brands: string }>(
    db,
    sql`
    select
      (select coalesce(json_agg(json_build_array(id, brand_id, service, points, one_time, deleted_at is not null)), '[]')::text
        from ${activityDefinitions} where account_id = ${accountId} and id = any(${ids(asked.activityIds)})) as definitions,
      (select coalesce(json_agg(json_build_array(id, coalesce(merged_into_id, id))), '[]')::text
        from ${members} where account_id = ${accountId} and id = any(${ids(asked.memberIds)})) as members,
      (select coalesce(json_agg(json_build_array(s.partner_code, s.partner_id, s.member_id)), '[]')::text
        from ${memberServices} s
        join unnest(${texts(asked.partnerRefs.map((ref) => ref.code))}, ${texts(asked.partnerRefs.map((ref) => ref.id))}) as p(code, id)
          on s.partner_code = p.code and s.partner_id = p.id
        where s.account_id = ${accountId}) as partners,
      (select coalesce(json_agg(id), '[]')::text
        from ${brands} where account_id = ${accountId} and id = any(${ids(asked.brandIds)}) and deleted_at is null) as brands`,
  );
  const definitions = JSON.parse(row.definitions) as [number, number | null, string | null, number, boolean, boolean][];
  const memberRows = JSON.parse(row.members) as [number, number][];
  const partnerRows = JSON.parse(row.partners) as [string, string, number][];
  return {
    definitions: new Map(definitions.map(([id, brandId, service, points, oneTime, deleted]) => [id, { id, brandId, service, points, oneTime, deleted }])),
    members: new Map(memberRows),
    partners: new Map(partnerRows.map(([code, id, memberId]) => [partnerKey({ code, id }), memberId])),
    brands: new Set(JSON.parse(row.brands) as number[]),
  };
}

// ——— records and their rollups ———

export interface RollupDelta {
  accountId: number;
  memberId: number;
  day: string;
  activityId: number;
  brandId: number | null;
  service: string | null;
  oneTime: boolean;
  count: number;
  points: number;
}

/**
 * The rollup's key order, the one every writer of rollup rows takes them in so concurrent writers
 * never deadlock: member, day, activity, brand, service, numbers numerically, no brand or service
 * first. `insertRecords` orders its statement the same way (`rollupOrder`).
 */
function compareRollupKeys(a: RollupDelta, b: RollupDelta): number {
  const text = (x: string | null, y: string | null) => (x === y ? 0 : x === null ? -1 : y === null ? 1 : x < y ? -1 : 1);
  return a.memberId - b.memberId || text(a.day, b.day) || a.activityId - b.activityId || (a.brandId ?? 0) - (b.brandId ?? 0) || text(a.service, b.service);
}
const rollupOrder = sql`order by member_id, day, activity_id, brand_id nulls first, service collate "C" nulls first`;

/** Sums records into one delta per rollup key, in the rollup's key order (see compareRollupKeys). */
export function rollupDeltas(records: readonly Pick<RecordRow, 'accountId' | 'memberId' | 'completedAt' | 'activityId' | 'brandId' | 'service' | 'oneTime' | 'points'>[], sign: 1 | -1) {
  const deltas = new Map<string, RollupDelta>();
  for (const record of records) {
    const day = formatDay(record.completedAt);
    const key = [record.memberId, day, record.activityId, record.brandId ?? '', record.service ?? ''].join('\u0000');
    const delta = deltas.get(key);
    if (delta) {
      delta.count += sign;
      delta.points += sign * record.points;
    } else {
      deltas.set(key, { ...record, day, count: sign, points: sign * record.points });
    }
  }
  return [...deltas.values()].sort(compareRollupKeys);
}

export async function applyRollupDeltas(tx: Transaction, deltas: RollupDelta[]) {
  if (!deltas.length) return;
  const daily = memberActivityDaily;
  for (const run of statementRuns(deltas)) {
    await tx
      .insert(daily)
      .values(run.map(({ accountId, memberId, day, activityId, brandId, service, oneTime, count, points }) => ({ accountId, memberId, day, activityId, brandId, service, oneTime, count, points })))
      .onConflictDoUpdate({
        target: [daily.accountId, daily.memberId, daily.day, daily.activityId, daily.brandId, daily.service],
        set: { count: sql`${daily.count} + excluded.count`, points: sql`${daily.points} + excluded.points` },
      });
  }
  const accountId = deltas[0].accountId;
  // The kept data follows (kept-data/kept-writes.ts): the days changed, the pairs that appeared,
  // and the pairs of rows that may have gone.
  const branded = deltas.filter((delta) => delta.brandId !== null);
  await markDaysStale(
    tx,
    accountId,
    branded.filter((delta) => !delta.oneTime).map((delta) => delta.day),
  );
  await addBrandMembers(
    tx,
    accountId,
    branded.filter((delta) => delta.count > 0).map((delta) => ({ brandId: delta.brandId!, memberId: delta.memberId })),
  );
  if (deltas.some((delta) => delta.count < 0)) {
    const gone = await tx
      .delete(daily)
      .where(and(eq(daily.accountId, accountId), sql`${daily.count} <= 0`, inArray(daily.memberId, [...new Set(deltas.map((d) => d.memberId))])))
      .returning({ brandId: daily.brandId, memberId: daily.memberId });
    await recheckBrandMembers(
      tx,
      accountId,
      gone.filter((row) => row.brandId !== null).map((row) => ({ brandId: row.brandId!, memberId: row.memberId })),
    );
  }
}

/** The columns a new record takes from its input, in the order of the statement below. */
export const recordColumns = [
  ['memberId', 'int'],
  ['activityId', 'int'],
  ['brandId', 'int'],
  ['service', 'text'],
  ['marker', 'text'],
  ['points', 'int'],
  ['oneTime', 'bool'],
  ['link', 'text'],
  ['media', 'text'],
  ['category', 'text'],
  ['content', 'jsonb'],
  ['value', 'float8'],
  ['geoCountry', 'text'],
  ['geoCity', 'text'],
  ['geoRegion', 'text'],
  ['geoLat', 'text'],
  ['geoLong', 'text'],
  ['completedAt', 'timestamptz'],
] as const satisfies readonly (readonly [keyof NewRecordRow, string])[];

/** A record's column as the driver takes it inside an array literal (arrayLiteral); null for none. */
export function driverValue(row: Partial<NewRecordRow> | undefined, key: (typeof recordColumns)[number][0]): string | number | boolean | null {
  const value = row?.[key];
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return value.toISOString();
  if (key === 'content') return JSON.stringify(value);
  return value as string | number | boolean;
}

/** What a batch needs back of each stored record: its id, and what the kept totals count. */
const storedKeys = ['id', 'accountId', 'memberId', 'activityId', 'brandId', 'service', 'marker', 'points', 'oneTime', 'completedAt'] as const;
export type StoredRecord = Pick<RecordRow, (typeof storedKeys)[number]>;

/** The columns a batch answers of each stored record, and how to read them: whole, or those of StoredRecord. */
export const answeredColumns = { full: columnsOf(activityRecords), stored: columnsOf(activityRecords, { only: storedKeys }) };
type AnsweredColumns = (typeof answeredColumns)[keyof typeof answeredColumns];

/**
 * The statement that stores records and adds them to the daily rollup: the batch arrives as one
 * array per column (`unnest`), is inserted in input order, and the rows actually inserted are
 * summed per rollup key and upserted into `member_activity_daily` (rollupOfInserted). A record
 * whose marker (or one-time activity) is already stored, or repeated earlier in the batch, is
 * skipped by the unique indexes, so concurrent repeats store it once; only inserted records reach
 * the rollup. All rows share the account and application of the first. Answers the inserted
 * records ordered by id (ids grow in input order), with the `answered` columns. The members are
 * held first (recordGate); with `admitted`, the repeatable records must complete at or after the
 * kept windows' claim, or nothing is stored (gateResult throws).
 */
function recordsStatement(rows: readonly NewRecordRow[], answered: AnsweredColumns, { admitted }: { admitted: boolean }): SQL {
  const { accountId, applicationId } = rows[0];
  const columns = recordColumns.map(([key, type]) => sql`${arrayLiteral(rows.map((row) => driverValue(row, key)))}::${sql.raw(type)}[]`);
  const memberIds = sql`${arrayLiteral([...new Set(rows.map((row) => row.memberId))])}::int[]`;
  const repeatable = sql`${arrayLiteral(rows.filter((row) => !row.oneTime).map((row) => row.completedAt.toISOString()))}::timestamptz[]`;
  return sql`
    with input as (
      select * from unnest(${sql.join(columns, sql`, `)}) with ordinality
        as i(member_id, activity_id, brand_id, service, marker, points, one_time, link, media, category, content, value,
             geo_country, geo_city, geo_region, geo_lat, geo_long, completed_at, ord)
    ),
    ${recordGate(accountId, memberIds, admitted ? { admitted, repeatable } : { admitted })},
    inserted as (
      insert into ${activityRecords} (account_id, application_id, member_id, activity_id, brand_id, service, marker, points, one_time, link, media,
        category, content, value, geo_country, geo_city, geo_region, geo_lat, geo_long, completed_at)
      select ${accountId}::int, ${applicationId ?? null}::int, member_id, activity_id, brand_id, service, marker, points, one_time, link, media,
        category, content, value, geo_country, geo_city, geo_region, geo_lat, geo_long, completed_at
      from input cross join gate where gate.held and gate.admitted order by ord
      on conflict do nothing
      returning *
    ),
    ${rollupOfInserted(accountId)}
    select ${gateColumns}, ${sql.raw(answered.from('inserted'))} from gate left join inserted on true order by inserted.id`;
}

/**
 * The common tail of the statements that store records, after their `gate` and `inserted` CTEs
 * (`insert … returning *`): `rolled_up` sums the inserted records per rollup key and upserts them
 * into `member_activity_daily`, in the rollup's key order; then the kept data follows the new rows
 * (keptOfInserted: stale timeline days, new brand members).
 */
export function rollupOfInserted(accountId: number | Placeholder): SQL {
  const daily = memberActivityDaily;
  return sql`
    rolled_up as (
      insert into ${daily} (account_id, member_id, day, activity_id, brand_id, service, one_time, count, points)
      select ${accountId}::int, member_id, day, activity_id, brand_id, service, one_time, count, points from (
        select member_id, (completed_at at time zone 'UTC')::date as day, activity_id, brand_id, service,
          bool_or(one_time) as one_time, count(*)::int as count, sum(points)::int as points
        from inserted group by member_id, day, activity_id, brand_id, service
      ) per_key
      ${rollupOrder}
      on conflict (account_id, member_id, day, activity_id, brand_id, service) do update
        set count = ${daily}.count + excluded.count, points = ${daily}.points + excluded.points
    ),
    ${keptOfInserted(accountId)}`;
}

/**
 * Stores records in the caller's transaction (recordsStatement). Then, for repeatable records, the
 * kept score windows' coverage lock is taken shared (held to commit) and their coverage read; records inside
 * it (stored late) are counted in the totals (countRecordsIn). Answers the inserted records in input
 * order: whole with `full`, otherwise the columns of StoredRecord.
 */
export async function insertRecords(tx: Transaction, rows: NewRecordRow[], options: { full: true }): Promise<RecordRow[]>;
export async function insertRecords(tx: Transaction, rows: NewRecordRow[], options?: { full?: boolean }): Promise<StoredRecord[]>;
export async function insertRecords(tx: Transaction, rows: NewRecordRow[], { full = false } = {}): Promise<StoredRecord[]> {
  if (!rows.length) return [];
  const { accountId } = rows[0];
  const answered = full ? answeredColumns.full : answeredColumns.stored;
  // Prepared: its text is the same for every batch (one array parameter per column).
  const statement = preparedRowsOf<Record<string, unknown>>(tx, recordsStatement(rows, answered, { admitted: false })).then(gateResult);
  // Issued together, so the driver sends them in one write: the statement, the coverage lock, the
  // coverage. A connection runs its statements in the order they are issued, each after the one
  // before it ends, so the coverage is read under the lock, as score-windows.locks.ts requires.
  const repeatable = rows.some((row) => !row.oneTime);
  const lock = repeatable ? holdCoverageLock(tx, accountId, 'shared') : undefined;
  const coverage = repeatable
    ? executeRows<{ from: string | null; until: string | null }>(tx, sql`select min(covered_from)::text as "from", max(covered_until)::text as until from ${scoreWindows} where account_id = ${accountId}`)
    : undefined;
  const [inserted, , covered] = await Promise.all([statement, lock, coverage]);
  const records = answered.read(inserted);
  // Read to the millisecond, so the span is widened by one: countRecordsIn decides exactly.
  const from = covered?.[0]?.from ? Date.parse(covered[0].from) - 1 : undefined;
  const until = covered?.[0]?.until ? Date.parse(covered[0].until) + 1 : undefined;
  const late = (record: StoredRecord) => !record.oneTime && record.completedAt.getTime() >= from! && record.completedAt.getTime() < until!;
  if (from !== undefined && until !== undefined && records.some(late)) {
    await countRecordsIn(tx, accountId, records, 1);
  }
  return records;
}

/**
 * Stores records as insertRecords does, in one statement that is its own transaction: one round
 * trip instead of three (`begin`; the statement with the lock and the coverage, sent together;
 * `commit`). It can only do so when every stored repeatable record completes at or after the kept
 * windows' claim (the stretch a worker may be folding into the totals), as records of now do; it
 * then waits for no fold.
 * Otherwise the statement fails and stores nothing, and the error answers true to
 * `beforeWindowsClaim`. Answers the inserted records in input order, as insertRecords does.
 */
export async function insertRecordsAlone(db: Executor, rows: NewRecordRow[], options: { full: true }): Promise<RecordRow[]>;
export async function insertRecordsAlone(db: Executor, rows: NewRecordRow[], options?: { full?: boolean }): Promise<StoredRecord[]>;
export async function insertRecordsAlone(db: Executor, rows: NewRecordRow[], { full = false } = {}): Promise<StoredRecord[]> {
  if (!rows.length) return [];
  const answered = full ? answeredColumns.full : answeredColumns.stored;
  return answered.read(gateResult(await preparedRowsOf<Record<string, unknown>>(db, recordsStatement(rows, answered, { admitted: true }))));
}

/** True when insertRecordsAlone refused a batch because a record completes before the kept windows' claim. */
export const beforeWindowsClaim = (error: unknown) => hasSqlState(error, beforeClaimState);

/** The stored record a repeat refers to: by marker, or the member's one-time record. */
export async function findExistingRecord(db: Executor, row: Pick<NewRecordRow, 'accountId' | 'marker' | 'memberId' | 'activityId'>): Promise<RecordRow | undefined> {
  const [existing] = await db
    .select()
    .from(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, row.accountId),
        row.marker ? eq(activityRecords.marker, row.marker) : and(eq(activityRecords.memberId, row.memberId), eq(activityRecords.activityId, row.activityId), eq(activityRecords.oneTime, true)),
      ),
    )
    .limit(1);
  return existing;
}

/** Deletes records of a member (one, or all of an activity) and takes them out of the rollup. */
export async function deleteRecords(tx: Transaction, accountId: number, memberId: number, which: { recordId?: number; activityId?: number }) {
  const deleted = await tx
    .delete(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, accountId),
        eq(activityRecords.memberId, memberId),
        which.recordId ? eq(activityRecords.id, which.recordId) : undefined,
        which.activityId ? eq(activityRecords.activityId, which.activityId) : undefined,
      ),
    )
    .returning();
  await applyRollupDeltas(tx, rollupDeltas(deleted, -1));
  await countRecordsIn(tx, accountId, deleted, -1);
  return deleted;
}

/** How often, and when first and last, a member performed an activity in the window. */
export async function checkActivity(db: Executor, { accountId, memberId, activityId, window }: { accountId: number; memberId: number; activityId: number; window: ResolvedWindow }) {
  const [row] = await db
    .select({
      count: sql<number>`count(*)::int`,
      firstAt: sql<Date | null>`min(${activityRecords.completedAt})`.mapWith(activityRecords.completedAt),
      lastAt: sql<Date | null>`max(${activityRecords.completedAt})`.mapWith(activityRecords.completedAt),
    })
    .from(activityRecords)
    .where(and(eq(activityRecords.accountId, accountId), eq(activityRecords.memberId, memberId), eq(activityRecords.activityId, activityId), within(activityRecords.completedAt, window)));
  return row;
}

/** Per calendar day of the window, per activity or per network, from the rollup. */
export function dailyCounts(db: Executor, accountId: number, window: ResolvedWindow, by: 'activity' | 'service') {
  const daily = memberActivityDaily;
  const group = by === 'activity' ? daily.activityId : daily.service;
  return db
    .select({
      day: daily.day,
      group: group,
      activityName: by === 'activity' ? sql<string | null>`min(${activityDefinitions.name})` : sql<string | null>`null`,
      count: sql<number>`sum(${daily.count})::int`,
      distinctMembers: sql<number>`count(distinct ${daily.memberId})::int`,
      points: sql<number>`sum(${daily.points})::int`,
    })
    .from(daily)
    .leftJoin(activityDefinitions, and(eq(activityDefinitions.accountId, daily.accountId), eq(activityDefinitions.id, daily.activityId)))
    .where(and(eq(daily.accountId, accountId), sql`${daily.day} >= ${formatDay(window.start)} and ${daily.day} <= ${formatDay(window.end)}`))
    .groupBy(daily.day, group)
    .orderBy(asc(daily.day), sql`2`);
}

/** Deletes `memberId`'s one-time records of activities `keeperId` also performed; returns them. */
export function deleteOneTimeRecordsAlsoOf(tx: Transaction, accountId: number, memberId: number, keeperId: number) {
  return tx
    .delete(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, accountId),
        eq(activityRecords.memberId, memberId),
        eq(activityRecords.oneTime, true),
        sql`exists (select 1 from ${activityRecords} kept where kept.account_id = ${accountId} and kept.member_id = ${keeperId}
          and kept.activity_id = ${activityRecords.activityId} and kept.one_time)`,
      ),
    )
    .returning();
}

/** Gives every record of one member to another. */
export async function moveRecords(tx: Transaction, accountId: number, fromId: number, toId: number): Promise<void> {
  await tx
    .update(activityRecords)
    .set({ memberId: toId })
    .where(and(eq(activityRecords.accountId, accountId), eq(activityRecords.memberId, fromId)));
}

/** Deletes a member's daily rollup rows; returns them. */
export async function deleteDailyRollupsOf(tx: Transaction, accountId: number, memberId: number) {
  const daily = memberActivityDaily;
  const deleted = await tx
    .delete(daily)
    .where(and(eq(daily.accountId, accountId), eq(daily.memberId, memberId)))
    .returning();
  const branded = deleted.filter((row) => row.brandId !== null);
  await markDaysStale(
    tx,
    accountId,
    branded.filter((row) => !row.oneTime).map((row) => row.day),
  );
  await recheckBrandMembers(
    tx,
    accountId,
    branded.map((row) => ({ brandId: row.brandId!, memberId })),
  );
  return deleted;
}
