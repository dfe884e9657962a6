import type { Executor } from '../../db/client.js';
import { preparedRows } from '../../db/statements.js';

/**
 * A plain page of members by id answered whole by PostgreSQL: the statement builds the JSON of
 * `members(orderBy: ID)` exactly as the GraphQL response would carry it (the selection's keys in
 * its order, ids as strings, enums and times as GraphQL serialises them, cursors as
 * `encodeCursor` makes them), so the gateway passes the text on. listing-json.ts decides which
 * documents qualify; anything else runs through the resolvers.
 */

/** One key of the response: the field it answers and, for objects and lists, what it selects. */
export interface JsonPick {
  key: string;
  field: string;
  picks?: JsonPick[];
}

const text = (value: string) => `'${value}'::text`;
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** `encodeCursor({ i: id })`: base64url of `{"i":<id>}`, without padding. */
const cursorOf = (id: string) => `rtrim(translate(encode(convert_to('{"i":' || ${id} || '}', 'UTF8'), 'base64'), '+/', '-_'), '=')`;

/** Scalar fields of each type the statement answers, as SQL over the type's row alias. */
export const memberColumns: Readonly<Record<string, string>> = {
  __typename: text('Member'),
  id: 'p.id::text',
  email: 'p.email',
  firstName: 'p.first_name',
  surname: 'p.surname',
  username: 'p.username',
};
// The summaries Member.services answers from `serviceSummariesOfMembers` (toServiceSummary).
export const serviceColumns: Readonly<Record<string, string>> = {
  __typename: text('ServiceLink'),
  id: 's.id::text',
  network: 's.network',
  userId: 's.uid',
  valid: 's.valid',
};
// OptIn as toOptIn makes it from `currentOptInsJson`'s rows.
export const optInColumns: Readonly<Record<string, string>> = {
  __typename: text('OptIn'),
  id: 'o.id::text',
  kind: 'upper(o.kind)',
  brandId: 'o.brand_id::text',
  segmentId: 'o.segment_id::text',
  label: `case when o.kind = 'segment' then s.label end`,
  name: `case o.kind when 'brand' then b.name when 'segment' then s.name end`,
  optedInAt: iso('o.opted_in_at'),
  optedOutAt: iso('o.opted_out_at'),
};
/** Lists of a member the statement answers, and the fields of their items. */
export const memberLists: Readonly<Record<string, Readonly<Record<string, string>>>> = { services: serviceColumns, optins: optInColumns };
export const edgeFields: ReadonlySet<string> = new Set(['__typename', 'cursor', 'node', 'rank', 'rankCapped']);
export const pageInfoFields: ReadonlySet<string> = new Set(['__typename', 'hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor']);

const objectOf = (picks: readonly JsonPick[], value: (pick: JsonPick) => string) => `json_build_object(${picks.map((pick) => `'${pick.key}', ${value(pick)}`).join(', ')})`;

/**
 * A member's list as a JSON array. Its rows, and the brands and segments they name, are held to the
 * account by the statement's parameter `$1`, not by another table's column: on a Citus cluster a
 * statement over a CTE refuses a subquery correlated through a column, while one naming the
 * account is routed to its shard with the rest of the statement.
 */
function memberListSql(pick: JsonPick): string {
  const columns = memberLists[pick.field];
  const item = objectOf(pick.picks!, (field) => columns[field.field]);
  if (pick.field === 'services') {
    return `(select coalesce(json_agg(${item} order by s.id), '[]'::json) from member_services s
      where s.account_id = $1 and s.member_id = p.id)`;
  }
  // The current opt-ins, as currentOptInsJson reads them: lists of deleted brands and segments are
  // gone. The lists are joined for their names only; otherwise each is one index probe, which
  // costs the page a fifth less than joining them.
  const named = pick.picks!.some((field) => field.field === 'name' || field.field === 'label');
  const lists = named
    ? `left join brands b on b.id = o.brand_id and b.account_id = $1
      left join segments s on s.id = o.segment_id and s.account_id = $1`
    : '';
  const live = named
    ? '(o.brand_id is null or b.deleted_at is null) and (o.segment_id is null or s.deleted_at is null)'
    : `(o.brand_id is null or exists (select from brands b where b.account_id = $1 and b.id = o.brand_id and b.deleted_at is null))
        and (o.segment_id is null or exists (select from segments s where s.account_id = $1 and s.id = o.segment_id and s.deleted_at is null))`;
  return `(select coalesce(json_agg(${item} order by o.id), '[]'::json) from optins o ${lists}
      where o.account_id = $1 and o.member_id = p.id and o.opted_out_at is null and ${live})`;
}

/**
 * A member's rank in the listing (MemberEdge.rank) from `p.place`, its place on the page, and
 * `before`, the members listed before the page: counted up to `cap` (member-listing.ts's
 * rankCap), null beyond it, as rankAt answers.
 */
const beyondCap = (cap: number) => `(before.members >= ${cap} or before.members + p.place > ${cap})`;
const rankOf = (cap: number) => `case when ${beyondCap(cap)} then null else (before.members + p.place)::int end`;

export interface PlainPage {
  /** Members on the page (the statement reads one more to know whether another page follows). */
  limit: number;
  direction: 'ASC' | 'DESC';
  /** Whether the page starts after a member id (the second parameter). */
  after: boolean;
  /** The deepest rank counted (MemberEdge.rank beyond it is null). */
  rankCap: number;
}

/** The statement's text for a connection selection (`picks`) and a page. Values are parameters but the page size. */
export function memberPageText(picks: readonly JsonPick[], page: PlainPage): string {
  const order = page.direction === 'ASC' ? 'asc' : 'desc';
  const reverse = page.direction === 'ASC' ? 'desc' : 'asc';
  const node = (pick: JsonPick) => objectOf(pick.picks!, (field) => (field.picks ? memberListSql(field) : memberColumns[field.field]));
  const edge = (pick: JsonPick): string => {
    if (pick.field === 'cursor') return cursorOf('p.id');
    if (pick.field === 'node') return node(pick);
    if (pick.field === 'rank') return rankOf(page.rankCap);
    if (pick.field === 'rankCapped') return beyondCap(page.rankCap);
    return text('MemberEdge');
  };
  const pageInfo = (pick: JsonPick): string => {
    if (pick.field === 'hasNextPage') return `(select count(*) from listed) > ${page.limit}`;
    if (pick.field === 'hasPreviousPage') return page.after ? 'true' : 'false';
    if (pick.field === 'startCursor') return `(select ${cursorOf('p.id')} from page p order by p.id ${order} limit 1)`;
    if (pick.field === 'endCursor') return `(select ${cursorOf('p.id')} from page p order by p.id ${reverse} limit 1)`;
    return text('PageInfo');
  };
  const connection = (pick: JsonPick): string => {
    if (pick.field === 'edges') {
      const ranked = pick.picks!.some((field) => field.field === 'rank' || field.field === 'rankCapped');
      return `(select coalesce(json_agg(${objectOf(pick.picks!, edge)} order by p.id ${order}), '[]'::json) from page p${ranked ? ' cross join before' : ''})`;
    }
    if (pick.field === 'pageInfo') return objectOf(pick.picks!, pageInfo);
    return text('MemberConnection');
  };
  return `with listed as (
      select id, account_id, email, first_name, surname, username from members
      where account_id = $1 and merged_into_id is null ${page.after ? 'and id > $2' : ''}
      order by id ${order} limit ${page.limit + 1}),
    page as (select *, row_number() over (order by id ${order}) as place from listed order by id ${order} limit ${page.limit}),
    -- The members before the page: none on a first page; after a member, those up to its id (as
    -- countBeforeById counts them before the page's first member), up to the cap. Read only when an
    -- edge's rank is selected.
    before as (select ${page.after ? `(select count(*) from (select from members where account_id = $1 and merged_into_id is null and id <= $2 limit ${page.rankCap}) counted)` : '0'} as members)
    select ${objectOf(picks, connection)}::text as body`;
}

/** The page's JSON, as `memberPageText` builds it. */
export async function memberPageJson(db: Executor, text: string, accountId: number, after: number | undefined): Promise<string> {
  const [row] = await preparedRows<{ body: string }>(db, text, after === undefined ? [accountId] : [accountId, after]);
  return row.body;
}
