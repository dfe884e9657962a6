import { and, asc, desc, eq, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { activityDefinitions, activityRecords, brands, emailOutbox, loginEvents, memberServices, optins, segments, widgetSessions } from '../../db/schema/index.js';

/**
 * What a fan's page in the console reads besides the member row: one statement each, every one
 * held to the account and the member (an index leading with both), each list bounded.
 */

/** A fan's identities as the console shows them: never a token, a token secret or a password hash. */
export function servicesOfFan(db: Executor, accountId: number, memberId: number) {
  return db
    .select({
      id: memberServices.id,
      network: memberServices.network,
      uid: memberServices.uid,
      username: memberServices.username,
      userUrl: memberServices.userUrl,
      valid: memberServices.valid,
      activitySharing: memberServices.activitySharing,
      paidAccount: memberServices.paidAccount,
      followers: memberServices.followers,
      verifiedEmail: memberServices.verifiedEmail,
      expiresAt: memberServices.expiresAt,
      lastLoginAt: memberServices.lastLoginAt,
      createdAt: memberServices.createdAt,
    })
    .from(memberServices)
    .where(and(eq(memberServices.accountId, accountId), eq(memberServices.memberId, memberId)))
    .orderBy(asc(memberServices.id))
    .limit(200);
}
export type FanServiceRow = Awaited<ReturnType<typeof servicesOfFan>>[number];

/** Every opt-in of the fan, current and past, with its dates and its list's name; newest first. */
export function optInsOfFan(db: Executor, accountId: number, memberId: number) {
  return db
    .select({
      id: optins.id,
      kind: optins.kind,
      brandId: optins.brandId,
      brandName: brands.name,
      segmentId: optins.segmentId,
      segmentName: segments.name,
      optedInAt: optins.optedInAt,
      optedOutAt: optins.optedOutAt,
    })
    .from(optins)
    .leftJoin(brands, and(eq(brands.accountId, accountId), eq(brands.id, optins.brandId)))
    .leftJoin(segments, and(eq(segments.accountId, accountId), eq(segments.id, optins.segmentId)))
    .where(and(eq(optins.accountId, accountId), eq(optins.memberId, memberId)))
    .orderBy(desc(optins.optedInAt), desc(optins.id))
    .limit(500);
}
export type FanOptInRow = Awaited<ReturnType<typeof optInsOfFan>>[number];

/** Where a page of the timeline starts: after this record (newest first). */
export interface RecordPosition {
  /** The completion time as PostgreSQL wrote it (microseconds: a Date would round them off). */
  completedAt: string;
  id: number;
}

/**
 * A page of the fan's activity records, newest first (completion time, then id), from the
 * (account, member, completed_at) index; `limit` rows from `after` on.
 */
export function recordsOfFan(db: Executor, accountId: number, memberId: number, limit: number, after?: RecordPosition) {
  return db
    .select({
      id: activityRecords.id,
      activityId: activityRecords.activityId,
      activityName: activityDefinitions.name,
      activityType: activityDefinitions.type,
      brandId: activityRecords.brandId,
      service: activityRecords.service,
      points: activityRecords.points,
      link: activityRecords.link,
      completedAt: activityRecords.completedAt,
      recordedAt: activityRecords.recordedAt,
      position: sql<string>`${activityRecords.completedAt}::text`,
    })
    .from(activityRecords)
    .innerJoin(activityDefinitions, and(eq(activityDefinitions.accountId, accountId), eq(activityDefinitions.id, activityRecords.activityId)))
    .where(
      and(
        eq(activityRecords.accountId, accountId),
        eq(activityRecords.memberId, memberId),
        after
          ? or(sql`${activityRecords.completedAt} < ${after.completedAt}::timestamptz`, and(sql`${activityRecords.completedAt} = ${after.completedAt}::timestamptz`, lt(activityRecords.id, after.id)))
          : undefined,
      ),
    )
    .orderBy(desc(activityRecords.completedAt), desc(activityRecords.id))
    .limit(limit);
}
export type FanRecordRow = Awaited<ReturnType<typeof recordsOfFan>>[number];

/**
 * The fan's widget sessions, newest first, each with whether it still answers: one started under
 * the member's current session generation and not expired (ending the sessions raises the
 * generation, so none of the earlier ones answers again).
 */
export function widgetSessionsOfFan(db: Executor, accountId: number, memberId: number, sessionGeneration: number) {
  return db
    .select({
      id: widgetSessions.id,
      applicationId: widgetSessions.applicationId,
      beganWith: widgetSessions.beganWith,
      createdAt: widgetSessions.createdAt,
      expiresAt: widgetSessions.expiresAt,
      live: sql<boolean>`${widgetSessions.sessionGeneration} = ${sessionGeneration} and ${widgetSessions.expiresAt} > now()`,
    })
    .from(widgetSessions)
    .where(and(eq(widgetSessions.accountId, accountId), eq(widgetSessions.memberId, memberId)))
    .orderBy(desc(widgetSessions.createdAt))
    .limit(100);
}
export type FanSessionRow = Awaited<ReturnType<typeof widgetSessionsOfFan>>[number];

/** The fan's latest registrations and sign-ins (where, from which address and browser). */
export function loginEventsOfFan(db: Executor, accountId: number, memberId: number) {
  return db
    .select({
      id: loginEvents.id,
      kind: loginEvents.kind,
      network: loginEvents.network,
      domain: loginEvents.domain,
      applicationId: loginEvents.applicationId,
      ip: loginEvents.ip,
      userAgent: loginEvents.userAgent,
      createdAt: loginEvents.createdAt,
    })
    .from(loginEvents)
    .where(and(eq(loginEvents.accountId, accountId), eq(loginEvents.memberId, memberId)))
    .orderBy(desc(loginEvents.createdAt))
    .limit(100);
}
export type FanLoginRow = Awaited<ReturnType<typeof loginEventsOfFan>>[number];

/** The emails queued or sent to the fan, newest first; never their bodies (a pending one holds a live link). */
export function emailsOfFan(db: Executor, accountId: number, memberId: number) {
  return db
    .select({
      id: emailOutbox.id,
      kind: emailOutbox.kind,
      recipient: emailOutbox.recipient,
      subject: emailOutbox.subject,
      status: emailOutbox.status,
      attempts: emailOutbox.attempts,
      createdAt: emailOutbox.createdAt,
      sentAt: emailOutbox.sentAt,
    })
    .from(emailOutbox)
    .where(and(eq(emailOutbox.accountId, accountId), eq(emailOutbox.memberId, memberId)))
    .orderBy(desc(emailOutbox.createdAt))
    .limit(100);
}
export type FanEmailRow = Awaited<ReturnType<typeof emailsOfFan>>[number];
