import { and, asc, desc, eq, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { columnsOf, preparedRows } from '../../db/statements.js';
import { holdTransactionLock } from '../../db/transaction-lock.js';
import { loginEvents, memberDomains, members, memberServices } from '../../db/schema/index.js';
import { markMemberDaysStale, recheckMemberPairs } from '../kept-data/kept-writes.js';
import { currentOptInsJson, type OptInRow } from './member-optins.queries.js';

export type MemberRow = typeof members.$inferSelect;
export type NewMemberRow = typeof members.$inferInsert;
export type ServiceRow = typeof memberServices.$inferSelect;
export type NewServiceRow = typeof memberServices.$inferInsert;
export type DomainRow = typeof memberDomains.$inferSelect;

// Hot reads (a member by id, the loaders of a page) are hand-written prepared statements: see db/statements.ts.
const memberColumns = columnsOf(members);
const serviceColumns = columnsOf(memberServices);
const domainColumns = columnsOf(memberDomains);

/**
 * The columns a page of members reads when its selection asks for nothing beyond them (see
 * `listedMemberSelection` in members.mapping.ts): a member row has some 35 columns, and reading
 * and mapping all of them for every member of a page cost more than the rest of the page. Such a
 * page may read its members' service summaries and current opt-ins in the same statement, as JSON
 * built by the database, instead of two more statements through the loaders.
 */
export const narrowMemberColumns = { id: members.id, email: members.email, firstName: members.firstName, surname: members.surname, username: members.username };

export type NarrowMemberRow = { [K in keyof typeof narrowMemberColumns]: MemberRow[K] } & {
  /** The member's services as `serviceSummariesOfMembers` reads them, when the page asked for them. */
  services?: ServiceSummaryRow[];
  /** The member's current opt-ins as `currentOptInsOf` reads them (times as text), when the page asked for them. */
  optins?: (Omit<OptInRow, 'optedInAt'> & { optedInAt: string })[];
};

export interface NarrowPageReads {
  services: boolean;
  optins: boolean;
}

/*
 * The subqueries below read the tables of the member being read, and name its account by the
 * statement's own value (`account`: `$1` in the texts of this file, a parameter in Drizzle's), not
 * by `members.account_id`: on a Citus cluster a subquery held to the account only through the outer
 * row's column is planned on every shard (32 tasks for one member), where one naming the value goes
 * to the member's shard alone (docs/scaling.md, "Statements on a cluster").
 */

/** `serviceSummariesOfMembers` for the row of `members` being read, as a JSON array. */
const serviceSummariesJson = (
  account: string,
) => `select coalesce(json_agg(json_build_object('id', s.id, 'memberId', s.member_id, 'network', s.network, 'uid', s.uid, 'valid', s.valid) order by s.id), '[]'::json)
  from member_services s where s.account_id = ${account} and s.member_id = members.id`;
const optInsJson = (account: string) => currentOptInsJson(account, 'members.id');

/** Where the account goes in a subquery's text before it is made a Drizzle parameter. */
const accountMark = '\u0000account\u0000';

/** The select list of a narrow page (Drizzle) of the account's members: the columns, and the JSON of what the page reads with them. */
export function narrowMemberSelection(accountId: number, reads: NarrowPageReads) {
  // The texts with the account as a Drizzle parameter where they name it.
  const withAccount = (text: (account: string) => string) =>
    sql.join(
      text(accountMark)
        .split(accountMark)
        .map((part) => sql.raw(part)),
      sql`${accountId}::int`,
    );
  return {
    ...narrowMemberColumns,
    ...(reads.services ? { services: sql<ServiceSummaryRow[]>`(${withAccount(serviceSummariesJson)})` } : {}),
    ...(reads.optins ? { optins: sql<NonNullable<NarrowMemberRow['optins']>>`(${withAccount(optInsJson)})` } : {}),
  };
}

const narrowPageTexts = new Map<string, string>();

/**
 * A narrow page of the account's members by id, without member conditions: the plain listing
 * (`members(orderBy: ID)`), as a prepared statement. `after` or `before` is an id to page from;
 * `direction` is the order the rows are read in.
 */
export async function narrowMembersById(
  db: Executor,
  accountId: number,
  reads: NarrowPageReads,
  page: { direction: 'ASC' | 'DESC'; limit: number; offset: number; after?: number; before?: number },
): Promise<NarrowMemberRow[]> {
  const from = page.after !== undefined ? 'after' : page.before !== undefined ? 'before' : '';
  const key = `${reads.services}:${reads.optins}:${page.direction}:${from}`;
  let text = narrowPageTexts.get(key);
  if (!text) {
    text = `select id, email, first_name as "firstName", surname, username
      ${reads.services ? `, (${serviceSummariesJson('$1')}) as services` : ''}
      ${reads.optins ? `, (${optInsJson('$1')}) as optins` : ''}
      from members where account_id = $1 and merged_into_id is null
      ${from === 'after' ? 'and id > $4' : from === 'before' ? 'and id < $4' : ''}
      order by id ${page.direction === 'ASC' ? 'asc' : 'desc'} limit $2 offset $3`;
    narrowPageTexts.set(key, text);
  }
  const params: unknown[] = [accountId, page.limit, page.offset];
  if (from) params.push(page.after ?? page.before);
  return preparedRows<NarrowMemberRow>(db, text, params);
}

const memberByIdText = `select ${memberColumns.sql} from members where account_id = $1 and id = $2`;
const membersByIdsText = `select ${memberColumns.sql} from members where account_id = $1 and id = any($2::int[])`;
const servicesOfMembersText = `select ${serviceColumns.sql} from member_services where account_id = $1 and member_id = any($2::int[]) order by id`;
/** What a page listing services usually asks for (network, user id, validity): no tokens, no timestamps. */
const serviceSummaryColumns = columnsOf(memberServices, { only: ['id', 'memberId', 'network', 'uid', 'valid'] });
export type ServiceSummaryRow = ReturnType<typeof serviceSummaryColumns.read>[number];
const serviceSummariesText = `select ${serviceSummaryColumns.sql} from member_services where account_id = $1 and member_id = any($2::int[]) order by id`;
const domainsOfMembersText = `select ${domainColumns.sql} from member_domains where account_id = $1 and member_id = any($2::int[]) order by first_visit, domain`;

/** A member's services as the loaders read them, without the password hash (never shown). */
export type ServiceLinkRow = Omit<ServiceRow, 'passwordHash'>;
const serviceLinkColumns = columnsOf(memberServices, { except: ['passwordHash'] });

/**
 * What was read with a member in its own statement, for the fields that would otherwise each load
 * it (see `MemberReads`): the same rows as the loaders', in the same order.
 */
export interface ReadWith {
  serviceSummaries?: ServiceSummaryRow[];
  services?: ServiceLinkRow[];
  domains?: DomainRow[];
  optins?: OptInRow[];
  /** The columns of `MemberReads.beside`, by name, as the driver read them. */
  beside?: Record<string, unknown>;
}

/** Kept on a member row, and on the Member made from it, when its statement read more than its columns. */
export const readWith = Symbol('read with the member');
export type MemberRowWith = MemberRow & { [readWith]?: ReadWith };

/** What member(id) reads in its own statement, as its selection asks: services (summaries or whole), domains, opt-ins. */
export interface MemberReads {
  services?: 'summary' | 'whole';
  domains?: boolean;
  optins?: boolean;
  /** Columns of another module's (member(id)'s score, say), read in findMember's statement. */
  beside?: BesideMember;
}

/**
 * Columns another module reads in a member's own statement, so that the fields it resolves later
 * find their values instead of each sending a statement: a select list over `members` that names
 * `$1` (the account) and, from `$3` on, its own `values` (findMember's statement: `$2` is the id).
 */
export interface BesideMember {
  columns: string;
  names: readonly string[];
  values: readonly unknown[];
}

const serviceLinksJson = `select coalesce(json_agg(${serviceLinkColumns.jsonObject('s')} order by s.id), '[]'::json)
  from member_services s where s.account_id = $1 and s.member_id = members.id`;
const domainsJson = `select coalesce(json_agg(${domainColumns.jsonObject('d')} order by d.first_visit, d.domain), '[]'::json)
  from member_domains d where d.account_id = $1 and d.member_id = members.id`;

/**
 * The select list of a member row read from `members` (which may be joined with other tables), and,
 * with `reads`, the JSON of what its fields will ask for, read by the database in the same statement.
 * The statement's first parameter is the account (`$1`), which the subqueries name.
 */
export function memberSelectList(reads?: MemberReads): string {
  const key = `${reads?.services ?? ''}:${Boolean(reads?.domains)}:${Boolean(reads?.optins)}:${reads?.beside?.columns ?? ''}`;
  let list = memberSelectLists.get(key);
  if (!list) {
    list = `${memberColumns.from('members')}
      ${reads?.services === 'summary' ? `, (${serviceSummariesJson('$1')}) as "readServiceSummaries"` : ''}
      ${reads?.services === 'whole' ? `, (${serviceLinksJson}) as "readServices"` : ''}
      ${reads?.domains ? `, (${domainsJson}) as "readDomains"` : ''}
      ${reads?.optins ? `, (${optInsJson('$1')}) as "readOptins"` : ''}
      ${reads?.beside ? `, ${reads.beside.columns}` : ''}`;
    memberSelectLists.set(key, list);
  }
  return list;
}
const memberSelectLists = new Map<string, string>();

const memberWithText = (reads: MemberReads) => `select ${memberSelectList(reads)} from members where account_id = $1 and id = $2`;

/**
 * Member rows of a statement selecting `memberSelectList(reads)`, in place: typed columns, and the
 * JSON columns moved under `readWith`. Columns named in `others` (the statement's own, beside the
 * member's) are taken off the rows and answered apart, row by row.
 */
export function readMemberRows<Other extends string = never>(
  rows: Record<string, unknown>[],
  reads: MemberReads | undefined,
  others: readonly Other[] = [],
): { member: MemberRowWith; other: Record<Other, unknown> }[] {
  return memberColumns.read(rows).map((member) => {
    const row = member as Record<string, unknown>;
    const other = {} as Record<Other, unknown>;
    for (const name of others) {
      other[name] = row[name];
      delete row[name];
    }
    if (!reads) return { member, other };
    const read = readWithOf(row, reads);
    // The JSON columns are not the member's own.
    for (const name of ['readServiceSummaries', 'readServices', 'readDomains', 'readOptins', ...(reads.beside?.names ?? [])]) delete row[name];
    return { member: Object.assign(member, { [readWith]: read }), other };
  });
}

/** Reads the JSON columns of a member's statement into what `readWith` keeps. */
function readWithOf(row: Record<string, unknown>, reads: MemberReads): ReadWith {
  const json = (name: string) => (row[name] ?? []) as Record<string, unknown>[];
  return {
    serviceSummaries: reads.services === 'summary' ? (json('readServiceSummaries') as ServiceSummaryRow[]) : undefined,
    services: reads.services === 'whole' ? serviceLinkColumns.read(json('readServices')) : undefined,
    domains: reads.domains ? domainColumns.read(json('readDomains')) : undefined,
    optins: reads.optins ? readOptInsJson(json('readOptins')) : undefined,
    beside: reads.beside && Object.fromEntries(reads.beside.names.map((name) => [name, row[name]])),
  };
}

/** Opt-ins read as JSON (see `currentOptInsJson`): their opt-in times come as text. */
export function readOptInsJson(rows: Record<string, unknown>[]): OptInRow[] {
  for (const row of rows) row.optedInAt = new Date(row.optedInAt as string);
  return rows as unknown as OptInRow[];
}

/**
 * How many merge pointers a lookup follows. A merge re-points the members merged earlier straight at
 * the survivor, so one hop is normal; a longer chain (or a cycle, which the locking merges and the
 * `members_not_merged_into_self` check rule out) answers as not found instead of looping.
 */
export const maxMergeHops = 8;

/**
 * A member by id, following merges: the id of a merged member answers as its survivor. With
 * `reads`, the same statement reads what the member's fields will ask for (kept under `readWith`).
 */
export async function findMember(db: Executor, accountId: number, id: number, reads?: MemberReads): Promise<MemberRowWith | undefined> {
  const text = reads ? memberWithText(reads) : memberByIdText;
  let next: number | null = id;
  for (let hop = 0; next !== null && hop <= maxMergeHops; hop += 1) {
    const [read]: { member: MemberRowWith }[] = readMemberRows(await preparedRows(db, text, [accountId, next, ...(reads?.beside?.values ?? [])]), reads);
    if (!read) return undefined;
    if (read.member.mergedIntoId === null) return read.member;
    next = read.member.mergedIntoId;
  }
  return undefined;
}

/**
 * Locks members for a merge (`select ... for update`), always in ascending id order so two merges of
 * the same pair wait for each other instead of deadlocking, and answers their current rows by id.
 */
export async function lockMembers(db: Executor, accountId: number, ids: readonly number[]): Promise<Map<number, MemberRow>> {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  if (!sorted.length) return new Map();
  const rows = await db
    .select()
    .from(members)
    .where(and(eq(members.accountId, accountId), inArray(members.id, sorted)))
    .orderBy(asc(members.id))
    .for('update');
  return new Map(rows.map((row) => [row.id, row]));
}

export async function findMembersByIds(db: Executor, accountId: number, ids: readonly number[], reads?: MemberReads): Promise<MemberRowWith[]> {
  if (!reads) return memberColumns.read(await preparedRows(db, membersByIdsText, [accountId, ids]));
  const text = `select ${memberSelectList(reads)} from members where account_id = $1 and id = any($2::int[])`;
  return readMemberRows(await preparedRows(db, text, [accountId, ids]), reads).map((read) => read.member);
}

export async function findMemberByEmail(db: Executor, accountId: number, email: string) {
  const [row] = await db
    .select()
    .from(members)
    .where(and(eq(members.accountId, accountId), sql`lower(${members.email}) = ${email.toLowerCase()}`, isNull(members.mergedIntoId)))
    .orderBy(asc(members.id))
    .limit(1);
  return row;
}

/**
 * Holds, until the transaction ends, the lock of one verified address of the account: concurrent
 * verifications of one address take turns, so each sees the member verified before it.
 */
export async function lockVerifiedEmail(db: Executor, accountId: number, email: string): Promise<void> {
  await holdTransactionLock(db, `verified-email:${accountId}:${email.toLowerCase()}`);
}

/** Members of the account with this verified address, oldest first (the oldest survives a merge). */
export async function findMembersByVerifiedEmail(db: Executor, accountId: number, email: string) {
  return db
    .select()
    .from(members)
    .where(and(eq(members.accountId, accountId), sql`lower(${members.verifiedEmail}) = ${email.toLowerCase()}`, isNull(members.mergedIntoId)))
    .orderBy(asc(members.id));
}

/**
 * Whether a current member of the account other than `memberId` holds this address: as its
 * verified address, as the address it signs in with (an email identity), or as the address a
 * network proved for one of its identities. Identities move with a merge, so their member is a
 * current one. Each of the three reads is an index lookup within the account.
 */
export async function addressHeldByAnother(db: Executor, accountId: number, email: string, memberId: number): Promise<boolean> {
  const address = email.toLowerCase();
  const [verified] = await db
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.accountId, accountId), sql`lower(${members.verifiedEmail}) = ${address}`, isNull(members.mergedIntoId), ne(members.id, memberId)))
    .limit(1);
  if (verified) return true;
  // Email identities' uids are the lower-cased address (the unique index answers this one).
  const signIn = await findService(db, accountId, 'email', address);
  if (signIn && signIn.memberId !== memberId) return true;
  const [proved] = await db
    .select({ id: memberServices.id })
    .from(memberServices)
    .where(and(eq(memberServices.accountId, accountId), sql`lower(${memberServices.verifiedEmail}) = ${address}`, ne(memberServices.memberId, memberId)))
    .limit(1);
  return proved !== undefined;
}

export async function findMemberByAccessTokenDigest(db: Executor, accountId: number, digest: string) {
  const [row] = await db
    .select()
    .from(members)
    .where(and(eq(members.accountId, accountId), eq(members.accessTokenHash, digest)));
  return row;
}

export async function insertMember(db: Executor, values: NewMemberRow) {
  const [row] = await db.insert(members).values(values).returning();
  return row;
}

export async function updateMember(db: Executor, accountId: number, id: number, values: Partial<NewMemberRow>) {
  const [row] = await db
    .update(members)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(members.accountId, accountId), eq(members.id, id)))
    .returning();
  return row;
}

/**
 * Records a sign-in on the member row, only while the member's sessions are of the generation the
 * sign-in's credentials were read under: undefined when a reset, merge or revocation raised it
 * since (then nothing is written). The row stays locked until the transaction ends, so a reset
 * waits for the sign-in and ends what it minted.
 */
export async function updateMemberOfGeneration(db: Executor, accountId: number, id: number, sessionGeneration: number, values: Partial<NewMemberRow>) {
  const [row] = await db
    .update(members)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(members.accountId, accountId), eq(members.id, id), eq(members.sessionGeneration, sessionGeneration)))
    .returning({ id: members.id });
  return row;
}

/** Stores a rehashed password only over the hash it was checked against (a reset since wins). */
export async function rehashPassword(db: Executor, accountId: number, serviceId: number, checked: string, rehash: string): Promise<void> {
  await db
    .update(memberServices)
    .set({ passwordHash: rehash, updatedAt: new Date() })
    .where(and(eq(memberServices.accountId, accountId), eq(memberServices.id, serviceId), eq(memberServices.passwordHash, checked)));
}

export async function findService(db: Executor, accountId: number, network: string, uid: string) {
  const [row] = await db
    .select()
    .from(memberServices)
    .where(and(eq(memberServices.accountId, accountId), eq(memberServices.network, network), eq(memberServices.uid, uid)));
  return row;
}

/**
 * An identity with its member's session generation, read by one statement: what a sign-in checks
 * (the password hash) and what it mints under (the generation) are then of the same moment, so a
 * reset committed after this read (a new hash, a raised generation) ends what the sign-in mints.
 * Both tables are held by the account's value, so a cluster routes it (docs/scaling.md).
 */
export async function findServiceForSignIn(db: Executor, accountId: number, network: string, uid: string): Promise<{ service: ServiceRow; sessionGeneration: number } | undefined> {
  const [row] = await db
    .select({ service: memberServices, sessionGeneration: members.sessionGeneration })
    .from(memberServices)
    .innerJoin(members, and(eq(members.accountId, accountId), eq(members.id, memberServices.memberId)))
    .where(and(eq(memberServices.accountId, accountId), eq(memberServices.network, network), eq(memberServices.uid, uid)));
  return row;
}

export async function findServiceById(db: Executor, accountId: number, id: number) {
  const [row] = await db
    .select()
    .from(memberServices)
    .where(and(eq(memberServices.accountId, accountId), eq(memberServices.id, id)));
  return row;
}

export async function findServiceByUsername(db: Executor, accountId: number, network: string, username: string) {
  const [row] = await db
    .select()
    .from(memberServices)
    .where(and(eq(memberServices.accountId, accountId), eq(memberServices.network, network), sql`lower(${memberServices.username}) = ${username.toLowerCase()}`))
    .orderBy(asc(memberServices.id))
    .limit(1);
  return row;
}

export async function findServiceByPartner(db: Executor, accountId: number, partnerCode: string, partnerId: string) {
  const [row] = await db
    .select()
    .from(memberServices)
    .where(and(eq(memberServices.accountId, accountId), eq(memberServices.partnerCode, partnerCode), eq(memberServices.partnerId, partnerId)))
    .orderBy(asc(memberServices.id))
    .limit(1);
  return row;
}

/** Inserts an identity unless one exists already: concurrent registrations meet here. */
export async function insertServiceIfAbsent(db: Executor, values: NewServiceRow) {
  const [row] = await db.insert(memberServices).values(values).onConflictDoNothing().returning();
  return row;
}

export async function updateService(db: Executor, accountId: number, id: number, values: Partial<NewServiceRow>) {
  const [row] = await db
    .update(memberServices)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(memberServices.accountId, accountId), eq(memberServices.id, id)))
    .returning();
  return row;
}

export async function servicesOfMembers(db: Executor, accountId: number, memberIds: readonly number[]): Promise<ServiceRow[]> {
  return serviceColumns.read(await preparedRows(db, servicesOfMembersText, [accountId, memberIds]));
}

export async function serviceSummariesOfMembers(db: Executor, accountId: number, memberIds: readonly number[]): Promise<ServiceSummaryRow[]> {
  return serviceSummaryColumns.read(await preparedRows(db, serviceSummariesText, [accountId, memberIds]));
}

/**
 * The user agent of each member's latest registration or sign-in per domain, for many members in
 * one query (through the events' account, member, time index): one row per member and domain.
 */
export async function lastUserAgentsOfMembers(db: Executor, accountId: number, memberIds: readonly number[]) {
  return db
    .selectDistinctOn([loginEvents.memberId, loginEvents.domain], { memberId: loginEvents.memberId, domain: loginEvents.domain, userAgent: loginEvents.userAgent })
    .from(loginEvents)
    .where(and(eq(loginEvents.accountId, accountId), inArray(loginEvents.memberId, [...memberIds]), isNotNull(loginEvents.userAgent)))
    .orderBy(loginEvents.memberId, loginEvents.domain, desc(loginEvents.createdAt));
}

export async function domainsOfMembers(db: Executor, accountId: number, memberIds: readonly number[]): Promise<DomainRow[]> {
  return domainColumns.read(await preparedRows(db, domainsOfMembersText, [accountId, memberIds]));
}

/** Records a visit of a domain through a service; `registered` sticks once true. */
export async function touchDomain(db: Executor, row: { accountId: number; memberId: number; serviceId: number; domain: string; registered: boolean; at: Date }) {
  await db
    .insert(memberDomains)
    .values({ ...row, firstVisit: row.at, lastVisit: row.at })
    .onConflictDoUpdate({
      target: [memberDomains.accountId, memberDomains.serviceId, memberDomains.domain],
      set: { lastVisit: row.at, registered: sql`${memberDomains.registered} or excluded.registered` },
    });
}

export async function hasRegisteredOnDomain(db: Executor, accountId: number, memberId: number, domain: string) {
  const [row] = await db
    .select({ domain: memberDomains.domain })
    .from(memberDomains)
    .where(and(eq(memberDomains.accountId, accountId), eq(memberDomains.memberId, memberId), eq(memberDomains.domain, domain), eq(memberDomains.registered, true)))
    .limit(1);
  return Boolean(row);
}

export async function insertLoginEvent(db: Executor, values: typeof loginEvents.$inferInsert) {
  await db.insert(loginEvents).values(values);
}

/** Deletes a member, what is theirs (by cascade), and the shells of members merged into it. */
export async function deleteMember(db: Executor, accountId: number, id: number) {
  // Before the rollup rows go (by cascade), their timeline days are marked; after, the member's
  // brand pairs, which stay (no key links them to the member), are queued for a recheck, those of
  // records that committed while the delete waited for them included (kept-data/kept-writes.ts).
  await markMemberDaysStale(db, accountId, [id]);
  await db.delete(members).where(and(eq(members.accountId, accountId), eq(members.mergedIntoId, id), ne(members.id, id)));
  const deleted = await db
    .delete(members)
    .where(and(eq(members.accountId, accountId), eq(members.id, id)))
    .returning({ id: members.id });
  await recheckMemberPairs(db, accountId, [id]);
  return deleted.length > 0;
}
