import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { loginEvents, members, memberServices } from '../../db/schema/index.js';
import type { CompiledFilter } from '../../filters/compile.js';
import { within, type ResolvedWindow } from '../../filters/window.js';

/** Which identities count as sign-ups: conditions on the identity itself, not on its member. */
export interface ChannelFilter {
  validOnly?: boolean;
  service?: string;
  paidOnly?: boolean;
}

/**
 * Sign-ups per channel: every identity a member linked is a sign-up through its network (email
 * included), all time or in a window, of the members `admitted` keeps. Merged members'
 * identities belong to the survivor.
 */
export function signupsByChannel(db: Executor, admitted: CompiledFilter, filter: ChannelFilter, window?: ResolvedWindow) {
  const accountId = admitted.accountId;
  return db
    .select({ service: memberServices.network, signups: sql<number>`count(*)::int` })
    .from(memberServices)
    .innerJoin(members, and(eq(members.accountId, accountId), eq(members.id, memberServices.memberId)))
    .where(
      and(
        eq(memberServices.accountId, accountId),
        isNull(members.mergedIntoId),
        filter.validOnly ? eq(memberServices.valid, true) : undefined,
        filter.service ? eq(memberServices.network, filter.service) : undefined,
        admitted.member(),
        filter.paidOnly ? eq(memberServices.paidAccount, true) : undefined,
        window ? within(memberServices.createdAt, window) : undefined,
      ),
    )
    .groupBy(memberServices.network)
    .orderBy(desc(sql`count(*)`), memberServices.network);
}

/** Events (registrations or sign-ins) per website in the window, with the distinct members behind them. */
export function eventsByDomain(db: Executor, { accountId, kind, window, limit, offset }: { accountId: number; kind?: 'register' | 'login'; window: ResolvedWindow; limit: number; offset: number }) {
  return db
    .select({
      domain: sql<string>`coalesce(${loginEvents.domain}, 'API')`,
      events: sql<number>`count(*)::int`,
      members: sql<number>`count(distinct ${loginEvents.memberId})::int`,
    })
    .from(loginEvents)
    .where(and(eq(loginEvents.accountId, accountId), kind ? eq(loginEvents.kind, kind) : undefined, within(loginEvents.createdAt, window)))
    .groupBy(sql`1`)
    .orderBy(desc(sql`count(distinct ${loginEvents.memberId})`), desc(sql`count(*)`), sql`1`)
    .limit(limit)
    .offset(offset);
}

/**
 * Events of one kind per UTC day of the window, and over the whole window (the row without a day),
 * for the members the filter admits (no records are read: its brand and networks are said of the
 * member, see CompiledFilter.withoutRecords).
 */
export function eventsByDay(db: Executor, filter: CompiledFilter, kind: 'register' | 'login', window: ResolvedWindow) {
  const day = sql<string | null>`(${loginEvents.createdAt} at time zone 'UTC')::date::text`;
  return db
    .select({ day, count: sql<number>`count(*)::int`, distinctMembers: sql<number>`count(distinct ${loginEvents.memberId})::int` })
    .from(loginEvents)
    .innerJoin(members, and(eq(members.accountId, filter.accountId), eq(members.id, loginEvents.memberId)))
    .where(and(eq(loginEvents.accountId, filter.accountId), eq(loginEvents.kind, kind), within(loginEvents.createdAt, window), filter.member(), filter.withoutRecords()))
    .groupBy(sql`grouping sets ((${day}), ())`);
}

/** Registrations, sign-ins and distinct members behind them in the window. */
export async function eventTotals(db: Executor, accountId: number, window: ResolvedWindow) {
  const [row] = await db
    .select({
      registrations: sql<number>`count(*) filter (where ${loginEvents.kind} = 'register')::int`,
      logins: sql<number>`count(*) filter (where ${loginEvents.kind} = 'login')::int`,
      members: sql<number>`count(distinct ${loginEvents.memberId})::int`,
    })
    .from(loginEvents)
    .where(and(eq(loginEvents.accountId, accountId), within(loginEvents.createdAt, window)));
  return row;
}
