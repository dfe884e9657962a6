import { AppError, invalidParameter, notFound } from '../../core/errors.js';
import type { Transaction } from '../../db/client.js';
import { accessTokenExpired, digestToken, sameSecret } from '../identity/access-tokens.js';
import { endMemberSessions } from '../members/members.sessions.js';
import { normaliseEmail, readNetwork } from '../members/members.credentials.js';
import { currentMember, retryOnDeadlock } from '../members/members.merge.js';
import * as q from '../members/members.queries.js';
import type { MemberRow } from '../members/members.queries.js';
import { requireMember, type MemberResult, type MemberScope } from '../members/members.service.js';
import type { VerifyEmailInput } from '../members/members.types.js';
import { mergeInto } from './member-merge.js';
import { fanTarget, recordScopeAudit } from '../audit/audit.js';

/**
 * Marks an address verified for the member (only the registering application may). It never
 * merges: an address another member holds is refused (EMAIL_IN_USE, see markEmailVerified).
 */
export async function verifyEmail(scope: MemberScope, id: number, input: VerifyEmailInput): Promise<MemberResult> {
  const member = await requireMember(scope.db, scope.accountId, id);
  if (member.registeredByApplicationId !== scope.applicationId) {
    throw new AppError('WRONG_APPLICATION', 'Only the application that registered the member may verify its email.', 'apiKey');
  }
  const network = readNetwork(input.network, 'login');
  const verifiedEmail = normaliseEmail(input.verifiedEmail, 'verifiedEmail');
  const services = await q.servicesOfMembers(scope.db, scope.accountId, [member.id]);
  const service = input.serviceId ? services.find((candidate) => String(candidate.id) === input.serviceId) : services.find((candidate) => candidate.network === network);
  if (!service) throw notFound(`The member's ${network} service`, input.serviceId ? 'serviceId' : 'network');
  return markEmailVerified(scope, member, service, verifiedEmail, { param: 'verifiedEmail' });
}

/** The answer to a verification of an address another member holds; it names no member. */
export function emailInUse(param: string): AppError {
  return new AppError('EMAIL_IN_USE', "This address belongs to an existing account: sign in to it, then merge with that member's access token (member/[id]/merge).", param);
}

/**
 * Records the member's address as verified (on the member, and on the identity that proved it when
 * there is one), in one transaction, and answers the member.
 *
 * Proving an address never hands the prover another member's account: when another current member
 * of the account holds the address (q.addressHeldByAnother), nothing is written and the answer is
 * EMAIL_IN_USE (AE's email collision, 1111). The caller signs in to that account, and merging the
 * two needs the merged member's own access token (mergeMembers). `before` runs in the transaction
 * once the address is known to be free (a link is spent there, so a refusal leaves it usable).
 */
export async function markEmailVerified(
  scope: MemberScope,
  member: MemberRow,
  service: { id: number } | undefined,
  verifiedEmail: string,
  options: { param: string; before?: (tx: Transaction) => Promise<void> },
): Promise<MemberResult> {
  await retryOnDeadlock(() =>
    scope.db.transaction(async (tx) => {
      // Verifications of one address wait for each other, so the second sees the first and is refused.
      await q.lockVerifiedEmail(tx, scope.accountId, verifiedEmail);
      const locked = await q.lockMembers(tx, scope.accountId, [member.id]);
      currentMember(locked, member.id, 'id');
      if (await q.addressHeldByAnother(tx, scope.accountId, verifiedEmail, member.id)) throw emailInUse(options.param);
      await options.before?.(tx);
      if (service) await q.updateService(tx, scope.accountId, service.id, { verifiedEmail });
      await q.updateMember(tx, scope.accountId, member.id, { verifiedEmail, emailVerifiedAt: new Date() });
      await recordScopeAudit(tx, scope, { action: 'fan.edit', target: fanTarget(member.id), details: { fields: ['verifiedEmail'] } });
    }),
  );
  return { member: await requireMember(scope.db, scope.accountId, member.id), created: false };
}

/** Merges `fromId` into `intoId`; the other member's access token is the proof of ownership. */
export async function mergeMembers(scope: MemberScope, intoId: number, fromId: number, fromAccessToken: string): Promise<MemberResult> {
  // The member merged from is read first. An opposite merge that commits between the two reads
  // has then already made `into` answer as its survivor (a conflict, below), rather than showing
  // as `from`'s access token, which that merge renewed, no longer matching.
  const from = await q.findMember(scope.db, scope.accountId, fromId);
  const into = await requireMember(scope.db, scope.accountId, intoId, undefined, 'intoId');
  if (!from) throw notFound('Member', 'fromId');
  if (intoId === fromId) throw invalidParameter('fromId', 'a member cannot be merged into itself');
  if (into.id === from.id) {
    throw new AppError('CONFLICT', `Members ${intoId} and ${fromId} were merged already: both are member ${into.id}.`, 'fromId');
  }
  const digest = digestToken(fromAccessToken.trim());
  const checkToken = (merged: MemberRow) => {
    if (!sameSecret(merged.accessTokenHash, digest) || accessTokenExpired(merged.accessTokenIssuedAt)) {
      throw new AppError('INVALID_TOKEN', "The access token is not the other member's.", 'fromAccessToken');
    }
  };
  checkToken(from);
  return runMerge(scope, into, from, (_, locked) => checkToken(locked));
}

/**
 * Merges `fromId` into `intoId` for the console: staff are authorised by their role, so no access
 * token is asked for; otherwise the same merge, races, deadlock retry and audit entry as mergeMembers.
 */
export async function mergeMembersByStaff(scope: Pick<MemberScope, 'db' | 'accountId' | 'identity' | 'audit'>, intoId: number, fromId: number): Promise<MemberResult> {
  if (intoId === fromId) throw invalidParameter('otherId', 'a fan cannot be merged into itself');
  const into = await requireMember(scope.db, scope.accountId, intoId, undefined, 'keepId');
  const from = await requireMember(scope.db, scope.accountId, fromId, undefined, 'otherId');
  if (into.id === from.id) throw new AppError('CONFLICT', `Fans ${intoId} and ${fromId} were merged already: both are fan ${into.id}.`, 'otherId');
  return runMerge(scope, into, from);
}

async function runMerge(
  scope: Pick<MemberScope, 'db' | 'accountId' | 'identity' | 'audit'>,
  into: MemberRow,
  from: MemberRow,
  check?: (survivor: MemberRow, merged: MemberRow) => void,
): Promise<MemberResult> {
  // mergeInto locks both members and checks again: a concurrent merge may have taken either meanwhile.
  const survivor = await retryOnDeadlock(() =>
    scope.db.transaction(async (tx) => {
      const merged = await mergeInto(tx, into, from, check);
      await endMergedSessions(tx, scope, merged.id, from.id);
      await recordScopeAudit(tx, scope, { action: 'fan.merge', target: fanTarget(merged.id), details: { from: from.id, into: merged.id } });
      return merged;
    }),
  );
  return { member: await requireMember(scope.db, scope.accountId, survivor.id), created: false };
}

/**
 * A merge ends the sessions of both members: the merged member's sessions and tokens would
 * otherwise answer as the survivor, and its access token (the merge's proof) must prove nothing more.
 */
async function endMergedSessions(tx: Transaction, scope: Pick<MemberScope, 'accountId' | 'identity'>, survivorId: number, mergedId: number): Promise<void> {
  await endMemberSessions(tx, scope.identity.cipher, scope.accountId, survivorId);
  await endMemberSessions(tx, scope.identity.cipher, scope.accountId, mergedId);
}
