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

/**
 * Marks an address verified (only the registering application may) and merges the account's
 * members whose verified address is the same into the oldest of them, in one transaction.
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
  return markEmailVerified(scope, member, service, verifiedEmail);
}

/**
 * Records the member's address as verified (on the member, and on the identity that proved it when
 * there is one) and merges the account's members whose verified address is the same into the
 * oldest of them, in one transaction. Answers the survivor.
 */
export async function markEmailVerified(scope: MemberScope, member: MemberRow, service: { id: number } | undefined, verifiedEmail: string): Promise<MemberResult> {
  const survivor = await retryOnDeadlock(() =>
    scope.db.transaction(async (tx) => {
      // Verifications of one address wait for each other, so each sees the members verified before it.
      await q.lockVerifiedEmail(tx, scope.accountId, verifiedEmail);
      const sharing = await q.findMembersByVerifiedEmail(tx, scope.accountId, verifiedEmail);
      const locked = await q.lockMembers(tx, scope.accountId, [member.id, ...sharing.map((row) => row.id)]);
      currentMember(locked, member.id, 'id');
      if (service) await q.updateService(tx, scope.accountId, service.id, { verifiedEmail });
      await q.updateMember(tx, scope.accountId, member.id, { verifiedEmail, emailVerifiedAt: new Date() });
      // Oldest first; a member merged away while this waited for its lock is left out.
      const [oldest, ...others] = [...locked.values()].filter((row) => row.mergedIntoId === null && (row.id === member.id || row.verifiedEmail?.toLowerCase() === verifiedEmail.toLowerCase()));
      for (const other of others) {
        await mergeInto(tx, oldest, other);
        await endMergedSessions(tx, scope, oldest.id, other.id);
      }
      return oldest.id;
    }),
  );
  return { member: await requireMember(scope.db, scope.accountId, survivor), created: false };
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
  // mergeInto locks both members and checks again: a concurrent merge may have taken either meanwhile.
  const survivor = await retryOnDeadlock(() =>
    scope.db.transaction(async (tx) => {
      const merged = await mergeInto(tx, into, from, (_, locked) => checkToken(locked));
      await endMergedSessions(tx, scope, merged.id, from.id);
      return merged;
    }),
  );
  return { member: await requireMember(scope.db, scope.accountId, survivor.id), created: false };
}

/**
 * A merge ends the sessions of both members: the merged member's sessions and tokens would
 * otherwise answer as the survivor, and its access token (the merge's proof) must prove nothing more.
 */
async function endMergedSessions(tx: Transaction, scope: MemberScope, survivorId: number, mergedId: number): Promise<void> {
  await endMemberSessions(tx, scope.identity.cipher, scope.accountId, survivorId);
  await endMemberSessions(tx, scope.identity.cipher, scope.accountId, mergedId);
}
