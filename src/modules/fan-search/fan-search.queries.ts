import type { Executor } from '../../db/client.js';
import { plannedRows } from '../../db/statements.js';

/**
 * The console's fan search as SQL. The input is one of three kinds (fan-search.ts), and each kind
 * is a fixed list of branches, each one condition on one indexed column: an exact value, or a
 * prefix (`like 'ab%'`, on the `(account_id, lower(column) text_pattern_ops, id)` indexes). A
 * member is listed under the first branch it matches, never again under a later one (each branch
 * leaves out what the earlier ones match), so the branches are disjoint and the whole list has one
 * order: branch, then the matched value (byte order), then id. A page reads at most `limit` rows
 * of each branch from its cursor on, through its index in that order, and sorts those few: its
 * cost does not grow with the number of members or of matches. No `%term%` over every column, no
 * count.
 */

/** What a hit was found by, as the console shows it. */
export type FanMatch = 'id' | 'uid' | 'email' | 'verifiedEmail' | 'name' | 'firstName' | 'surname' | 'username';

/** The values a search binds; the statement names them by position. */
export interface SearchValues {
  /** The input as typed (trimmed); the statement lowers it (`lower()`, as the indexes do). */
  text: string;
  /** The input with `\`, `%` and `_` escaped and `%` appended: a prefix for `like … escape '\'`. */
  prefix: string;
  /** For a name of two words or more: the first word, and the rest as an escaped prefix. */
  first?: string;
  restPrefix?: string;
  rest?: string;
  /** For digits that fit a member id. */
  id?: number;
}

/** A column a branch reads, as the prefix indexes name it. */
const columns = { email: 'email', verifiedEmail: 'verified_email', firstName: 'first_name', surname: 'surname', username: 'username' } as const;
type ColumnName = keyof typeof columns;

/**
 * One branch: `matches` is its condition on a row of `members m` (which later branches leave out);
 * `byValue` branches are read in (lower(column), id) order, the others in id order.
 */
interface Branch {
  match: FanMatch;
  /** Whether a row of the branch is an exact match (SQL over `m`, or a constant). */
  exact: string;
  matches: string;
  byValue?: ColumnName;
  /** A merged member is listed (flagged) rather than left out: only an exact id names one on purpose. */
  withMerged?: boolean;
}

/** Positional parameters: `$1` is always the account. */
class Params {
  readonly values: unknown[];
  constructor(accountId: number) {
    this.values = [accountId];
  }
  add(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

export type SearchKind = 'digits' | 'email' | 'name';

/** The branches of a kind of input, in the order their hits are listed. */
function branchesOf(kind: SearchKind, values: SearchValues, p: Params): Branch[] {
  // Each value becomes a parameter on first use: a parameter the text never names has no type.
  const once = (make: () => string) => {
    let made: string | undefined;
    return () => (made ??= make());
  };
  const textParam = once(() => `lower(${p.add(values.text, 'text')})`);
  const prefixParam = once(() => `lower(${p.add(values.prefix, 'text')})`);
  const lowered = (column: ColumnName) => `lower(m.${columns[column]})`;
  const exactOf = (column: ColumnName, match: FanMatch): Branch => ({ match, exact: 'true', matches: `${lowered(column)} = ${textParam()}` });
  // The prefix branch's own rows start after the exact value (`~>~`), which the exact branch listed.
  const prefixOf = (column: ColumnName, match: FanMatch): Branch => ({
    match,
    exact: 'false',
    matches: `${lowered(column)} like ${prefixParam()} escape '\\'`,
    byValue: column,
  });
  const uid = (): Branch => ({
    match: 'uid',
    exact: 'true',
    // Uncorrelated: PostgreSQL reads the few identities once (account_id, uid index) and hashes them.
    matches: `m.id in (select s.member_id from member_services s where s.account_id = $1 and s.uid = ${p.add(values.text, 'text')})`,
  });
  if (kind === 'digits') {
    const byId: Branch[] = values.id === undefined ? [] : [{ match: 'id', exact: 'true', matches: `m.id = ${p.add(values.id, 'int')}`, withMerged: true }];
    return [...byId, uid()];
  }
  if (kind === 'email') {
    return [exactOf('email', 'email'), exactOf('verifiedEmail', 'verifiedEmail'), prefixOf('email', 'email'), prefixOf('verifiedEmail', 'verifiedEmail')];
  }
  // A name as typed, "first surname": the first word exactly, the rest as a prefix of the surname.
  const pair: Branch[] =
    values.first !== undefined && values.restPrefix !== undefined && values.rest !== undefined
      ? [
          {
            match: 'name',
            exact: `lower(m.surname) = lower(${p.add(values.rest, 'text')})`,
            matches: `lower(m.first_name) = lower(${p.add(values.first, 'text')}) and lower(m.surname) like lower(${p.add(values.restPrefix, 'text')}) escape '\\'`,
          },
        ]
      : [];
  return [
    ...pair,
    exactOf('firstName', 'firstName'),
    exactOf('surname', 'surname'),
    exactOf('username', 'username'),
    uid(),
    prefixOf('firstName', 'firstName'),
    prefixOf('surname', 'surname'),
    prefixOf('username', 'username'),
  ];
}

/** Where a page starts: after this hit (its branch, its matched value in a by-value branch, its id). */
export interface SearchPosition {
  branch: number;
  key: string | null;
  id: number;
}

export interface FanHitRow {
  branch: number;
  key: string | null;
  exact: boolean;
  id: number;
  email: string | null;
  verifiedEmail: string | null;
  firstName: string | null;
  surname: string | null;
  username: string | null;
  mergedIntoId: number | null;
  createdAt: Date;
  lastLoginAt: Date | null;
}

const selected = `m.id, m.email, m.verified_email as "verifiedEmail", m.first_name as "firstName", m.surname, m.username,
  m.merged_into_id as "mergedIntoId", m.created_at as "createdAt", m.last_login_at as "lastLoginAt"`;

/** What each branch of a kind matches, in list order (a cursor's branch must be one of them). */
export function branchMatches(kind: SearchKind, values: SearchValues): FanMatch[] {
  return branchesOf(kind, values, new Params(0)).map((branch) => branch.match);
}

/**
 * Up to `limit` hits in list order after `after` (from the start without it): one statement, a
 * union of each remaining branch's first `limit` rows. Sent unnamed (plannedRows), so each is
 * planned with its values: a `like` pattern turns into an index range only when the planner sees it.
 */
export async function searchFanRows(db: Executor, accountId: number, kind: SearchKind, values: SearchValues, limit: number, after?: SearchPosition): Promise<FanHitRow[]> {
  const statement = searchStatement(accountId, kind, values, limit, after);
  if (!statement) return [];
  return plannedRows<FanHitRow>(db, statement.text, statement.values);
}

/** The search's statement and its values (undefined when no branch is left after the cursor). */
export function searchStatement(accountId: number, kind: SearchKind, values: SearchValues, limit: number, after?: SearchPosition): { text: string; values: unknown[] } | undefined {
  const p = new Params(accountId);
  const branches = branchesOf(kind, values, p);
  const size = p.add(limit, 'int');
  const parts: string[] = [];
  branches.forEach((branch, index) => {
    if (after && index < after.branch) return;
    const earlier = branches
      .slice(0, index)
      .map((other) => ` and not coalesce(${other.matches}, false)`)
      .join('');
    const common = `m.account_id = $1${branch.withMerged ? '' : ' and m.merged_into_id is null'}${earlier}`;
    const from = after?.branch === index ? after : undefined;
    if (!branch.byValue) {
      const keyset = from ? ` and m.id > ${p.add(from.id, 'int')}` : '';
      parts.push(`(select ${index} as branch, null::text as key, (${branch.exact}) as exact, ${selected}
        from members m where ${common} and ${branch.matches}${keyset} order by m.id limit ${size})`);
      return;
    }
    const value = `lower(m.${columns[branch.byValue]})`;
    const beyond = (bound: string) => `(select ${index} as branch, ${value} as key, (${branch.exact}) as exact, ${selected}
        from members m where ${common} and ${branch.matches} and ${value} ~>~ ${bound} order by ${value} using ~<~, m.id limit ${size})`;
    if (!from || from.key === null) {
      parts.push(beyond(`lower(${p.add(values.text, 'text')})`));
      return;
    }
    // The rest of the cursor's value (the index's id order within it), then the values after it.
    const key = p.add(from.key, 'text');
    parts.push(`(select ${index} as branch, ${value} as key, (${branch.exact}) as exact, ${selected}
        from members m where ${common} and ${branch.matches} and ${value} = ${key} and m.id > ${p.add(from.id, 'int')} order by m.id limit ${size})`);
    parts.push(beyond(key));
  });
  if (!parts.length) return undefined;
  return { text: `select * from (${parts.join('\n  union all ')}) hits order by branch, key collate "C", id limit ${size}`, values: p.values };
}
