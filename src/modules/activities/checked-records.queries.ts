import { arrayLiteral } from '../../db/arrays.js';
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { fixedStatement } from '../../db/statements.js';
import { activityDefinitions, activityRecords, brands, members, memberServices } from '../../db/schema/index.js';
import { answeredColumns, applyRollupDeltas, driverValue, recordColumns, rollupDeltas, rollupOfInserted, type NewRecordRow, type RecordRow } from './activities.queries.js';
import { gateColumns, gateResult, passGate, recordGate } from '../kept-data/kept-writes.js';

/** What a record takes from its input alone, checked (activities.service.ts, inputColumns). */
export type InputColumns = Pick<NewRecordRow, 'service' | 'marker' | 'link' | 'media' | 'category' | 'content' | 'value' | 'geoCountry' | 'geoCity' | 'geoRegion' | 'geoLat' | 'geoLong'> & {
  completedAt: Date;
};

/**
 * A record as asked for: the ids its lookups resolve, and its own columns, or none when they
 * failed their checks (the record is then looked up, so its lookups' errors come first, but never
 * stored).
 */
export interface AskedRow {
  activityId: number;
  memberId: number | undefined;
  partner: { code: string; id: string } | undefined;
  brandId: number | undefined;
  columns: InputColumns | undefined;
}

/** What the lookups decided of one record: why it is refused, if it is, and what a stored one would be. */
export interface RowVerdict {
  /** The first of the record's ids not found: its activity (or a deleted one), its member, its brand. */
  refused: 'Activity' | 'Member' | 'Brand' | null;
  /** The member the record counts for: a merged member's survivor, or the member of the partner reference. */
  memberId: number | null;
  oneTime: boolean | null;
}

/** What a stored record takes from its lookups rather than from its input. */
const lookedUp = new Set<string>(['memberId', 'activityId', 'brandId', 'points', 'oneTime']);

/** The input columns, in the order of the statement's `unnest` list (recordColumns' order). */
const inputColumns = recordColumns.filter(([key]) => !lookedUp.has(key)) as readonly (readonly [keyof InputColumns, string])[];

/** The statement's values: each array in PostgreSQL's literal form (arrayLiteral). */
type StatementValues = Record<'activityIds' | 'memberIds' | 'partnerCodes' | 'partnerIds' | 'brandIds' | 'checked' | InputColumn, string> & {
  accountId: number;
  applicationId: number | null;
};
type InputColumn = keyof InputColumns;

/**
 * The CTEs both forms of the statement begin with: `input` (the batch, one array parameter a
 * column), `looked_up` (each record with its definition, member and brand) and the gate's (recordGate:
 * the members held, the kept windows' claim read).
 */
function lookedUpAndGated() {
  const accountId = sql.placeholder('accountId');
  // Each array is read through a scalar subquery (an InitPlan), so the planner never sees its
  // length and the prepared statement keeps its generic plan (see recordLookups). Seen, a batch of
  // a few records looked cheaper to plan afresh with every call, and planning then cost more than
  // the rest of the statement.
  const array = (name: keyof StatementValues, type: string) => sql`(select ${sql.placeholder(name)}::${sql.raw(type)}[])::${sql.raw(type)}[]`;
  const own = inputColumns.map(([key, type]) => array(key, type));
  // The members the records may name, read from the parameters alone (recordGate): by id (or the
  // member it was merged into) and by partner reference.
  const heldIds = sql`array(
      select coalesce(m.merged_into_id, m.id) from ${members} m where m.account_id = ${accountId}::int and m.id = any(${array('memberIds', 'int')})
      union
      select s.member_id from ${memberServices} s
        join unnest(${array('partnerCodes', 'text')}, ${array('partnerIds', 'text')}) as p(code, id) on s.partner_code = p.code and s.partner_id = p.id
      where s.account_id = ${accountId}::int)`;
  return sql`
    input as (
      select * from unnest(${array('activityIds', 'int')}, ${array('memberIds', 'int')}, ${array('partnerCodes', 'text')},
          ${array('partnerIds', 'text')}, ${array('brandIds', 'int')}, ${array('checked', 'bool')}, ${sql.join(own, sql`, `)}) with ordinality
        as i(activity_id, member_id, partner_code, partner_id, brand_id, checked, service, marker, link, media, category, content, value,
             geo_country, geo_city, geo_region, geo_lat, geo_long, completed_at, ord)
    ),
    looked_up as (
      select i.*,
        d.id is not null and d.deleted_at is null as activity_found, d.brand_id as activity_brand_id, d.service as activity_service,
        d.points, d.one_time,
        case when i.member_id is not null then coalesce(m.merged_into_id, m.id)
          else (select s.member_id from ${memberServices} s
                where s.account_id = ${accountId} and s.partner_code = i.partner_code and s.partner_id = i.partner_id limit 1)
        end as found_member_id,
        i.brand_id is null or b.id is not null as brand_found
      from input i
      left join ${activityDefinitions} d on d.account_id = ${accountId} and d.id = i.activity_id
      left join ${members} m on m.account_id = ${accountId} and m.id = i.member_id
      left join ${brands} b on b.account_id = ${accountId} and b.id = i.brand_id and b.deleted_at is null
    ),
    ${recordGate(accountId, heldIds, { admitted: true, repeatable: sql`array(select completed_at from looked_up where checked and activity_found and not one_time)` })}`;
}

/** A record's verdict as the statements spell it: the first of its ids not found. */
const refusedColumn = sql.raw(`case when not activity_found then 'Activity' when found_member_id is null then 'Member' when not brand_found then 'Brand' end`);

const checkedRecordsStatement = fixedStatement<StatementValues, { verdicts: string } & Record<string, unknown>>(() => {
  const accountId = sql.placeholder('accountId');
  return sql`
    with ${lookedUpAndGated()},
    inserted as (
      insert into ${activityRecords} (account_id, application_id, member_id, activity_id, brand_id, service, marker, points, one_time, link, media,
        category, content, value, geo_country, geo_city, geo_region, geo_lat, geo_long, completed_at)
      select ${accountId}::int, ${sql.placeholder('applicationId')}::int, found_member_id, activity_id, coalesce(brand_id, activity_brand_id),
        coalesce(service, activity_service), marker, points, one_time, link, media,
        category, content, value, geo_country, geo_city, geo_region, geo_lat, geo_long, completed_at
      from looked_up
      cross join gate
      where gate.held and gate.admitted and checked and activity_found and found_member_id is not null and brand_found
      order by ord
      on conflict do nothing
      returning *
    ),
    ${rollupOfInserted(accountId)},
    verdicts as (
      select json_agg(json_build_array(${refusedColumn}, found_member_id, one_time) order by ord)::text as verdicts
      from looked_up
    )
    select verdicts.verdicts, ${gateColumns}, ${sql.raw(answeredColumns.full.from('inserted'))}
    from verdicts cross join gate left join inserted on true
    order by inserted.id`;
});

/** A record of the batch as the lookup-only statement answers it, in input order. */
interface LookedUpRow extends Record<string, unknown> {
  refused: RowVerdict['refused'];
  memberId: number | null;
  oneTime: boolean | null;
  points: number | null;
  brandId: number | null;
  service: string | null;
  storable: boolean;
}

/** The batch looked up, its members held and the claim read, as checkedRecordsStatement does, without storing anything. */
const checkedLookupStatement = fixedStatement<StatementValues, LookedUpRow>(
  () => sql`
    with ${lookedUpAndGated()}
    select ${refusedColumn} as refused, found_member_id as "memberId", one_time as "oneTime", points,
      coalesce(brand_id, activity_brand_id) as "brandId", coalesce(service, activity_service) as service,
      checked and activity_found and found_member_id is not null and brand_found as storable, ${gateColumns}
    from looked_up cross join gate
    order by ord`,
);

function statementValues(accountId: number, applicationId: number | null, asked: readonly AskedRow[]): StatementValues {
  const own = Object.fromEntries(inputColumns.map(([key]) => [key, arrayLiteral(asked.map((row) => driverValue(row.columns, key)))])) as Record<InputColumn, string>;
  return {
    ...own,
    activityIds: arrayLiteral(asked.map((row) => row.activityId)),
    memberIds: arrayLiteral(asked.map((row) => row.memberId)),
    partnerCodes: arrayLiteral(asked.map((row) => row.partner?.code)),
    partnerIds: arrayLiteral(asked.map((row) => row.partner?.id)),
    brandIds: arrayLiteral(asked.map((row) => row.brandId)),
    checked: arrayLiteral(asked.map((row) => row.columns !== undefined)),
    accountId,
    applicationId,
  };
}

/**
 * Looks a batch of records up and stores those that pass, in one statement that is its own
 * transaction: one round trip where looking up (recordLookups) and then storing
 * (insertRecordsAlone) take two. The definitions, members (by id or partner reference) and brands
 * are joined to the batch in the statement; a record is stored when its activity is live, its
 * member found and its brand (if it names one) live, and its own columns passed their checks. It
 * takes its points, one-time flag, and default brand and network from its activity, as
 * checkedRecord does. Repeats are skipped, and the rollup and the kept windows' claim are kept, as
 * recordsStatement does with `admitted`: a record before the claim fails the statement, which
 * then stores nothing (`beforeWindowsClaim`).
 *
 * Answers each record's verdict, in input order, and the stored records ordered by id (ids grow in
 * input order), whole. All records share the account and the application.
 */
export async function insertCheckedRecords(db: Executor, accountId: number, applicationId: number | null, asked: readonly AskedRow[]): Promise<{ verdicts: RowVerdict[]; inserted: RecordRow[] }> {
  const rows = await checkedRecordsStatement(db, statementValues(accountId, applicationId, asked));
  const stored = gateResult(rows);
  const verdicts = (JSON.parse(rows[0].verdicts) as [RowVerdict['refused'], number | null, boolean | null][]).map(([refused, memberId, oneTime]) => ({ refused, memberId, oneTime }));
  // With nothing stored, the one row left-joined to no record carries the verdicts alone (gateResult leaves it out).
  return { verdicts, inserted: answeredColumns.full.read(stored.map(({ verdicts: _, ...row }) => row)) };
}

/**
 * What insertCheckedRecords does, as a transaction of plain statements: the lookup with its gate
 * (members held, claim read), the insert of the records that pass as rows of values, and their
 * rollup with its kept data (applyRollupDeltas). Each statement is one account's, and none has a
 * data-modifying CTE, so on Citus each is routed to the account's shard as it is; the one
 * statement's inserts in CTEs are not (Citus plans each as a subplan through the coordinator:
 * about 40 ms a group, whatever its size, against 1.6 ms on PostgreSQL; docs/scaling.md). More
 * round trips, so on PostgreSQL the one statement is the quicker.
 */
export async function insertCheckedRecordsInSteps(db: Executor, accountId: number, applicationId: number | null, asked: readonly AskedRow[]): Promise<{ verdicts: RowVerdict[]; inserted: RecordRow[] }> {
  return db.transaction(async (tx) => {
    const looked = await checkedLookupStatement(tx, statementValues(accountId, applicationId, asked));
    passGate(looked[0]);
    const rows: NewRecordRow[] = [];
    looked.forEach((row, index) => {
      const { activityId, columns } = asked[index];
      if (!row.storable || !columns) return;
      rows.push({ ...columns, accountId, applicationId, activityId, memberId: row.memberId!, brandId: row.brandId, service: row.service, points: row.points!, oneTime: row.oneTime! });
    });
    const inserted = rows.length ? await tx.insert(activityRecords).values(rows).onConflictDoNothing().returning() : [];
    await applyRollupDeltas(tx, rollupDeltas(inserted, 1));
    return { verdicts: looked.map(({ refused, memberId, oneTime }) => ({ refused, memberId, oneTime })), inserted };
  });
}
