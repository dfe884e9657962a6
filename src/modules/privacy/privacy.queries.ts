import { and, asc, eq, getTableColumns, gt, inArray, or, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/client.js';
import { typedArray } from '../../db/arrays.js';
import {
  activityQueue,
  activityRecords,
  emailOutbox,
  loginEvents,
  memberDomains,
  memberEmailLinks,
  members,
  memberServices,
  optins,
  presaveResults,
  segmentMembers,
  segments,
  signInTokens,
  widgetSessions,
} from '../../db/schema/index.js';

/** Rows of a fan's long lists (records, logins) read per statement: an export of any size is bounded statements. */
export const exportPageSize = 1000;

/** The members merged into this one (their shells point at it); their ids are the fan's too. */
export async function mergedShellIds(db: Executor, accountId: number, memberId: number): Promise<number[]> {
  const rows = await db
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.accountId, accountId), eq(members.mergedIntoId, memberId)))
    .orderBy(asc(members.id));
  return rows.map((row) => row.id);
}

/** A member's identities, without what opens them: no token, token secret or password hash. */
export function servicesForExport(db: Executor, accountId: number, memberId: number) {
  const { tokenSealed: _token, tokenSecretSealed: _secret, passwordHash: _hash, accountId: _account, ...columns } = getTableColumns(memberServices);
  return db
    .select(columns)
    .from(memberServices)
    .where(and(eq(memberServices.accountId, accountId), eq(memberServices.memberId, memberId)))
    .orderBy(asc(memberServices.id));
}

/** Every opt-in of the member, current and ended, oldest first. */
export function optInsForExport(db: Executor, accountId: number, memberId: number) {
  return db
    .select({ id: optins.id, kind: optins.kind, brandId: optins.brandId, segmentId: optins.segmentId, optedInAt: optins.optedInAt, optedOutAt: optins.optedOutAt })
    .from(optins)
    .where(and(eq(optins.accountId, accountId), eq(optins.memberId, memberId)))
    .orderBy(asc(optins.optedInAt), asc(optins.id));
}

/** The segments the member is in, by name. */
export function segmentsForExport(db: Executor, accountId: number, memberId: number) {
  return db
    .select({ id: segments.id, name: segments.name })
    .from(segmentMembers)
    .innerJoin(segments, and(eq(segments.accountId, segmentMembers.accountId), eq(segments.id, segmentMembers.segmentId)))
    .where(and(eq(segmentMembers.accountId, accountId), eq(segments.accountId, accountId), eq(segmentMembers.memberId, memberId)))
    .orderBy(asc(segments.id));
}

export function domainsForExport(db: Executor, accountId: number, memberId: number) {
  return db
    .select({ domain: memberDomains.domain, serviceId: memberDomains.serviceId, registered: memberDomains.registered, firstVisit: memberDomains.firstVisit, lastVisit: memberDomains.lastVisit })
    .from(memberDomains)
    .where(and(eq(memberDomains.accountId, accountId), eq(memberDomains.memberId, memberId)))
    .orderBy(asc(memberDomains.domain), asc(memberDomains.serviceId));
}

/** A page of the member's activity records in (completed_at, id) order, after `after`. */
export function recordsPage(db: Executor, accountId: number, memberId: number, after: { at: Date; id: number } | undefined) {
  const { accountId: _account, memberId: _member, ...columns } = getTableColumns(activityRecords);
  return db
    .select(columns)
    .from(activityRecords)
    .where(
      and(
        eq(activityRecords.accountId, accountId),
        eq(activityRecords.memberId, memberId),
        after && or(gt(activityRecords.completedAt, after.at), and(eq(activityRecords.completedAt, after.at), gt(activityRecords.id, after.id))),
      ),
    )
    .orderBy(asc(activityRecords.completedAt), asc(activityRecords.id))
    .limit(exportPageSize);
}

/** A page of the member's sign-ins and registrations in (created_at, id) order, after `after`. */
export function loginEventsPage(db: Executor, accountId: number, memberId: number, after: { at: Date; id: number } | undefined) {
  const { accountId: _account, memberId: _member, ...columns } = getTableColumns(loginEvents);
  return db
    .select(columns)
    .from(loginEvents)
    .where(
      and(
        eq(loginEvents.accountId, accountId),
        eq(loginEvents.memberId, memberId),
        after && or(gt(loginEvents.createdAt, after.at), and(eq(loginEvents.createdAt, after.at), gt(loginEvents.id, after.id))),
      ),
    )
    .orderBy(asc(loginEvents.createdAt), asc(loginEvents.id))
    .limit(exportPageSize);
}

/** The member's widget sessions, without the digest of the cookie's value. */
export function sessionsForExport(db: Executor, accountId: number, memberId: number) {
  return db
    .select({ id: widgetSessions.id, applicationId: widgetSessions.applicationId, beganWith: widgetSessions.beganWith, createdAt: widgetSessions.createdAt, expiresAt: widgetSessions.expiresAt })
    .from(widgetSessions)
    .where(and(eq(widgetSessions.accountId, accountId), eq(widgetSessions.memberId, memberId)))
    .orderBy(asc(widgetSessions.id));
}

/**
 * The mails to the member: those the outbox knows to be theirs, and those sent to one of their
 * addresses before it kept the member. Without the body, which holds a live link while pending.
 */
export function emailsForExport(db: Executor, accountId: number, memberId: number, addresses: readonly string[]) {
  return db
    .select({
      id: emailOutbox.id,
      kind: emailOutbox.kind,
      recipient: emailOutbox.recipient,
      subject: emailOutbox.subject,
      status: emailOutbox.status,
      createdAt: emailOutbox.createdAt,
      sentAt: emailOutbox.sentAt,
    })
    .from(emailOutbox)
    .where(and(eq(emailOutbox.accountId, accountId), or(eq(emailOutbox.memberId, memberId), recipientIn(addresses))))
    .orderBy(asc(emailOutbox.createdAt), asc(emailOutbox.id));
}

/** The links emailed to the member (verification, reset), without their secrets. */
export function emailLinksForExport(db: Executor, accountId: number, memberId: number) {
  return db
    .select({
      id: memberEmailLinks.id,
      purpose: memberEmailLinks.purpose,
      email: memberEmailLinks.email,
      createdAt: memberEmailLinks.createdAt,
      expiresAt: memberEmailLinks.expiresAt,
      usedAt: memberEmailLinks.usedAt,
    })
    .from(memberEmailLinks)
    .where(and(eq(memberEmailLinks.accountId, accountId), eq(memberEmailLinks.memberId, memberId)))
    .orderBy(asc(memberEmailLinks.id));
}

/** The sign-in tokens handed to the member's return URLs: when, for which application, spent or not; never the digest. */
export function signInTokensForExport(db: Executor, accountId: number, memberId: number) {
  return db
    .select({ id: signInTokens.id, applicationId: signInTokens.applicationId, createdAt: signInTokens.createdAt, expiresAt: signInTokens.expiresAt, usedAt: signInTokens.usedAt })
    .from(signInTokens)
    .where(and(eq(signInTokens.accountId, accountId), eq(signInTokens.memberId, memberId)))
    .orderBy(asc(signInTokens.id));
}

export function presaveResultsForExport(db: Executor, accountId: number, memberId: number) {
  return db
    .select({ jobId: presaveResults.jobId, network: presaveResults.network, item: presaveResults.item, status: presaveResults.status, updatedAt: presaveResults.updatedAt })
    .from(presaveResults)
    .where(and(eq(presaveResults.accountId, accountId), eq(presaveResults.memberId, memberId)))
    .orderBy(asc(presaveResults.jobId));
}

/** Every address the member is known by (profile, verified, email identities, links), lower-cased. */
export async function addressesOf(db: Executor, accountId: number, memberIds: readonly number[]): Promise<string[]> {
  const rows = await db
    .select({ email: members.email, verified: members.verifiedEmail })
    .from(members)
    .where(and(eq(members.accountId, accountId), inArray(members.id, [...memberIds])));
  const services = await db
    .select({ network: memberServices.network, uid: memberServices.uid, verified: memberServices.verifiedEmail })
    .from(memberServices)
    .where(and(eq(memberServices.accountId, accountId), inArray(memberServices.memberId, [...memberIds])));
  const links = await db
    .selectDistinct({ email: memberEmailLinks.email })
    .from(memberEmailLinks)
    .where(and(eq(memberEmailLinks.accountId, accountId), inArray(memberEmailLinks.memberId, [...memberIds])));
  const all = [
    ...rows.flatMap((row) => [row.email, row.verified]),
    ...services.flatMap((service) => [service.network === 'email' ? service.uid : null, service.verified]),
    ...links.map((link) => link.email),
  ];
  return [...new Set(all.filter((value): value is string => Boolean(value)).map((value) => value.trim().toLowerCase()))].sort();
}

const recipientIn = (addresses: readonly string[]) => (addresses.length ? sql`lower(${emailOutbox.recipient}) = any(${typedArray(addresses, 'text')})` : undefined);

/**
 * What of an erased fan does not cascade from the member's row: mails to their addresses queued
 * before the outbox kept the member (the rest cascade by `email_outbox_member_fk`), and records
 * accepted with `async=1` for them and not stored yet.
 */
export async function deleteUncascaded(tx: Transaction, accountId: number, memberIds: readonly number[], addresses: readonly string[]): Promise<void> {
  const byAddress = recipientIn(addresses);
  if (byAddress) await tx.delete(emailOutbox).where(and(eq(emailOutbox.accountId, accountId), byAddress));
  await tx.delete(activityQueue).where(
    and(
      eq(activityQueue.accountId, accountId),
      sql`${activityQueue.payload}->>'memberId' = any(${typedArray(
        memberIds.map((id) => String(id)),
        'text',
      )})`,
    ),
  );
}
