import { and, count, eq, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { AppError, invalidParameter, missingParameter } from '../../core/errors.js';
import { eraseMember } from '../privacy/member-erase.js';
import { exportMember, type MemberExport } from '../privacy/member-export.js';
import { activityRecords, optins } from '../../db/schema/index.js';
import type { AuditOrigin } from '../audit/audit.js';
import { mergeMembersByStaff } from '../lifecycle/lifecycle.service.js';
import { profileFields } from '../lifecycle/member-merge.js';
import { sendPasswordResetToMember } from '../lifecycle/member-emails.js';
import type { IdentityServices } from '../members/identity-services.js';
import { servicesOfMembers, type MemberRow } from '../members/members.queries.js';
import { updateMemberProfile } from '../members/members.service.js';
import { revokeMemberSessions } from '../members/members.sessions.js';
import type { UpdateMemberInput } from '../members/members.types.js';
import { findApplication, listApplications } from '../tenancy/tenancy.queries.js';
import { emailScope } from '../widget/widget.emails.js';
import { requireFan } from './fan-page.js';

/**
 * What staff do to a fan from the console, each through the service the public API uses for the
 * same change, and each writing its audit entry in the change's own transaction (so the entry
 * exists exactly when the change does).
 */
export interface FanScope {
  db: Database;
  accountId: number;
  identity: IdentityServices;
  /** Who acts, from where: the audit entries' actor, address and request. */
  origin: AuditOrigin;
}

/** The members module's scope: the staff member's origin makes each change record its entry (recordScopeAudit). */
function memberScope(scope: FanScope) {
  return { db: scope.db, accountId: scope.accountId, identity: scope.identity, audit: scope.origin };
}

/**
 * Edits a fan's profile (members.service's updateMemberProfile: the email identity follows a new
 * address, links to the old one end). The entry names the fields whose values changed, never the values.
 */
export async function updateFan(scope: FanScope, id: number, input: UpdateMemberInput): Promise<MemberRow> {
  return (await updateMemberProfile(memberScope(scope), id, input)).member;
}

/** Ends every session of the fan (members.sessions: the session generation raised, a new access token). */
export async function endFanSessions(scope: FanScope, id: number): Promise<MemberRow> {
  return (await revokeMemberSessions(memberScope(scope), id)).member;
}

/**
 * Emails the fan a link to choose a new password, as the hosted "forgot password" page does: from
 * the application that registered the fan (its sender name, template and hosted page), or the
 * account's first application. `baseUrl` is the gateway's public address the link opens.
 */
export async function sendFanPasswordReset(scope: FanScope, id: number, baseUrl: string | undefined): Promise<void> {
  if (!baseUrl) throw new AppError('INVALID_PARAMETER', 'The Host header names no host this gateway serves its pages on (PUBLIC_URL or ALLOWED_HOSTS).', 'host');
  const member = await requireFan(scope.db, scope.accountId, id);
  const application =
    (member.registeredByApplicationId !== null ? await findApplication(scope.db, scope.accountId, member.registeredByApplicationId) : undefined) ?? (await listApplications(scope.db, scope.accountId))[0];
  if (!application) throw new AppError('INVALID_PARAMETER', 'The account has no application whose pages could set a password.', 'id');
  const sending = { ...memberScope(scope), applicationId: application.id, settings: application.settings ?? {} };
  await sendPasswordResetToMember(emailScope(sending, application, baseUrl), member.id);
}

/** One profile field in a merge: each fan's value, and the one the kept fan ends with. */
export interface MergeField {
  field: string;
  keep: string | null;
  other: string | null;
  result: string | null;
  /** Both have a value and they differ: the kept fan's stays, the other's is dropped. */
  conflict: boolean;
}

export interface MergePreview {
  keep: MemberRow;
  other: MemberRow;
  fields: MergeField[];
  /** What moves to the kept fan. */
  moves: { services: number; optIns: number; records: number };
  /** Current opt-ins of the other fan to lists the kept fan is on: they are closed, their history kept. */
  optInsClosed: number;
  /** Networks both fans have an identity on: the kept fan ends with both identities. */
  networkConflicts: string[];
  /** Custom fields both have: the kept fan's value stays. */
  extendedConflicts: string[];
}

/** A profile value as text: the fields merged are text, dates and timestamps. */
function shown(value: string | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * What merging `otherId` into `keepId` would do, read only: the merge itself (lifecycle's
 * mergeInto) keeps the kept fan's values and fills its empty fields from the other's.
 */
export async function mergePreview(db: Executor, accountId: number, keepId: number, otherId: number): Promise<MergePreview> {
  const { keep, other } = await mergePair(db, accountId, keepId, otherId);
  const fields = profileFields.map((field) => {
    const keepValue = shown(keep[field]);
    const otherValue = shown(other[field]);
    return { field, keep: keepValue, other: otherValue, result: keepValue ?? otherValue, conflict: keepValue !== null && otherValue !== null && keepValue !== otherValue };
  });
  const [services, optInRows, [records]] = await Promise.all([
    servicesOfMembers(db, accountId, [keep.id, other.id]),
    db
      .select({ memberId: optins.memberId, kind: optins.kind, brandId: optins.brandId, segmentId: optins.segmentId, current: isNull(optins.optedOutAt) })
      .from(optins)
      .where(and(eq(optins.accountId, accountId), eq(optins.memberId, other.id)))
      .limit(10_000),
    db
      .select({ count: count() })
      .from(activityRecords)
      .where(and(eq(activityRecords.accountId, accountId), eq(activityRecords.memberId, other.id))),
  ]);
  const keptLists = await currentListsOf(db, accountId, keep.id);
  const listKey = (row: { kind: string; brandId: number | null; segmentId: number | null }) => `${row.kind}:${row.brandId ?? 0}:${row.segmentId ?? 0}`;
  const keepNetworks = new Set(services.filter((service) => service.memberId === keep.id).map((service) => service.network));
  const otherServices = services.filter((service) => service.memberId === other.id);
  return {
    keep,
    other,
    fields,
    moves: { services: otherServices.length, optIns: optInRows.length, records: Number(records?.count ?? 0) },
    optInsClosed: optInRows.filter((row) => row.current && keptLists.has(listKey(row))).length,
    networkConflicts: [...new Set(otherServices.filter((service) => keepNetworks.has(service.network)).map((service) => service.network))].sort(),
    extendedConflicts: Object.keys(other.extended ?? {})
      .filter((key) => Object.hasOwn(keep.extended ?? {}, key))
      .sort(),
  };
}

async function currentListsOf(db: Executor, accountId: number, memberId: number): Promise<Set<string>> {
  const rows = await db
    .select({ kind: optins.kind, brandId: optins.brandId, segmentId: optins.segmentId })
    .from(optins)
    .where(and(eq(optins.accountId, accountId), eq(optins.memberId, memberId), isNull(optins.optedOutAt)));
  return new Set(rows.map((row) => `${row.kind}:${row.brandId ?? 0}:${row.segmentId ?? 0}`));
}

/** The two current fans of a merge, or a clear refusal: the same fan twice, or one merged into the other already. */
async function mergePair(db: Executor, accountId: number, keepId: number, otherId: number): Promise<{ keep: MemberRow; other: MemberRow }> {
  if (keepId === otherId) throw invalidParameter('otherId', 'a fan cannot be merged into itself');
  const keep = await requireFan(db, accountId, keepId, 'keepId');
  const other = await requireFan(db, accountId, otherId, 'otherId');
  if (keep.id === other.id) throw new AppError('CONFLICT', `Fans ${keepId} and ${otherId} were merged already: both are fan ${keep.id}.`, 'otherId');
  return { keep, other };
}

/**
 * Merges `otherId` into `keepId` (lifecycle's merge: rows, records, kept totals, opt-ins move; both
 * fans' sessions end). Staff are authorised by their role, not by the other fan's access token.
 */
export async function mergeFans(scope: FanScope, keepId: number, otherId: number): Promise<MemberRow> {
  return (await mergeMembersByStaff(memberScope(scope), keepId, otherId)).member;
}

/** The longest confirmation accepted: an address is at most 320 characters. */
const maxConfirmation = 320;

/**
 * Erases the fan (privacy/member-erase.ts: everything personal, statistics as if the fan had never
 * been; `fan.erase` with a keyed hash of the address). The staff member confirms by typing the
 * fan's email address, compared case-insensitively (a fan without one: their member id).
 */
export async function eraseFan(scope: FanScope, id: number, confirmEmail: string): Promise<void> {
  const typed = (confirmEmail ?? '').trim().toLowerCase();
  if (!typed) throw missingParameter('confirmEmail', "Type the fan's email address to confirm the erasure.");
  if (typed.length > maxConfirmation) throw invalidParameter('confirmEmail', `at most ${maxConfirmation} characters`);
  const member = await requireFan(scope.db, scope.accountId, id);
  const expected = (member.email ?? member.verifiedEmail ?? String(member.id)).toLowerCase();
  if (typed !== expected) throw invalidParameter('confirmEmail', member.email || member.verifiedEmail ? "the fan's email address, as the confirmation" : "the fan's member id, as the confirmation");
  await eraseMember(scope.db, scope.accountId, member.id, scope.origin, scope.identity.emailHmac);
}

/** Everything stored about the fan, as one document (privacy/member-export.ts; recorded as `fan.export`). */
export function exportFan(scope: FanScope, id: number): Promise<MemberExport> {
  return exportMember(scope.db, scope.accountId, id, scope.origin);
}
