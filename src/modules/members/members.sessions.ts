import type { Executor } from '../../db/client.js';
import { accessTokenRenewalBefore, digestToken, newAccessToken } from '../identity/access-tokens.js';
import type { TokenCipher } from '../identity/token-cipher.js';
import { AppError, notFound } from '../../core/errors.js';
import { findMember, lockMembers, type MemberRow } from './members.queries.js';
import { currentMember } from './members.merge.js';
import { raiseSessionGeneration, renewAccessTokenIssuedBefore, type IssuedAccessToken } from './members.sessions.queries.js';
import type { MemberResult, MemberScope } from './members.service.js';
import { fanTarget, recordScopeAudit } from '../audit/audit.js';

/**
 * Ending a member's sessions: what a password reset, a merge (both members) and an explicit
 * revocation do. The member's session generation is raised, so every widget session, unspent
 * sign-in token and member JWT issued before answers no more (each carries the generation it was
 * issued under and is checked on use), and the member gets a new access token, so the old one
 * proves nothing any more. Runs in the caller's transaction, with the change it belongs to.
 */
export async function endMemberSessions(db: Executor, cipher: TokenCipher, accountId: number, memberId: number, now = new Date()): Promise<void> {
  await raiseSessionGeneration(db, accountId, memberId, issueAccessToken(cipher, now));
}

/** A sign-in renews an access token past half its lifetime (identity/access-tokens.ts). */
export async function renewOldAccessToken(db: Executor, cipher: TokenCipher, accountId: number, memberId: number, now = new Date()): Promise<void> {
  await renewAccessTokenIssuedBefore(db, accountId, memberId, accessTokenRenewalBefore(now), issueAccessToken(cipher, now));
}

/**
 * Revokes every session of the member (revokeMemberSessions, `member/[id]/sessions/revoke`). The
 * member row is locked first, so a concurrent merge either sees the raised generation or has
 * already made the member a pointer to its survivor (then CONFLICT, nothing changed).
 */
export async function revokeMemberSessions(scope: Pick<MemberScope, 'db' | 'accountId' | 'identity' | 'audit'>, id: number): Promise<MemberResult> {
  const member = await memberOrNotFound(scope.db, scope.accountId, id);
  await scope.db.transaction(async (tx) => {
    currentMember(await lockMembers(tx, scope.accountId, [member.id]), member.id, 'id');
    await endMemberSessions(tx, scope.identity.cipher, scope.accountId, member.id);
    await recordScopeAudit(tx, scope, { action: 'fan.sessions_end', target: fanTarget(member.id) });
  });
  return { member: await memberOrNotFound(scope.db, scope.accountId, member.id), created: false };
}

async function memberOrNotFound(db: Executor, accountId: number, id: number): Promise<MemberRow> {
  const member = await findMember(db, accountId, id);
  if (!member) throw notFound('Member');
  return member;
}

function issueAccessToken(cipher: TokenCipher, now: Date): IssuedAccessToken {
  const token = newAccessToken(now);
  return { accessTokenHash: digestToken(token), accessTokenSealed: cipher.seal(token), accessTokenIssuedAt: now };
}

/** A member JWT whose sessions were ended since it was signed: answered as any invalid token is. */
export function sessionEnded(): AppError {
  return new AppError('INVALID_TOKEN', 'The member token is invalid or expired.', 'authorization');
}
