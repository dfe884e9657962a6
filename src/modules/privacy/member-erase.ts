import type { Database } from '../../db/client.js';
import { retryTransaction } from '../../db/errors.js';
import { notFound } from '../../core/errors.js';
import { recordAudit, type AuditOrigin } from '../audit/audit.js';
import type { EmailHasher } from '../audit/audit-keys.js';
import { forgetMemberPairs } from '../brands/brand-members.queries.js';
import { findMember, lockMembers } from '../members/members.queries.js';
import { currentMember } from '../members/members.merge.js';
import { removeMember } from '../members/members.service.js';
import { addressesOf, deleteUncascaded, mergedShellIds } from './privacy.queries.js';

/**
 * Erases a fan of the account (GDPR article 17), in one transaction: the member and what cascades
 * from its row (services, opt-ins, segment memberships, domains, records and daily rollups, login
 * events, widget sessions, sign-in tokens, email links, presave results, mails the outbox kept for
 * them), the shells of members merged into it, their kept totals and groups and brand pairs
 * (statistics and rankings answer as if the fan had never been), mails to their addresses from
 * before the outbox kept the member, and records queued for them. The audit log gains `fan.erase`
 * by `origin`, naming the member id and a keyed hash of the address (`hasher`: IdentityServices'
 * emailHmac), never the address. A merged member's id erases its survivor; another account's id,
 * or none, is NOT_FOUND and nothing changes. Answers true (the answer of the delete it replaces).
 */
export async function eraseMember(db: Database, accountId: number, memberId: number, origin: AuditOrigin, hasher: EmailHasher): Promise<boolean> {
  const member = await findMember(db, accountId, memberId);
  if (!member) throw notFound('Member');
  // A deadlock victim (against a merge, or a writer of several members) erased nothing: it runs again.
  return retryTransaction(() =>
    db.transaction(async (tx) => {
      // Locked first (as removeMember does again), so the shells and addresses read are those deleted.
      currentMember(await lockMembers(tx, accountId, [member.id]), member.id, 'id');
      const shells = await mergedShellIds(tx, accountId, member.id);
      const ids = [member.id, ...shells];
      const addresses = await addressesOf(tx, accountId, ids);
      const primary = member.email ?? member.verifiedEmail ?? addresses[0];
      const removed = await removeMember(tx, accountId, member.id);
      if (!removed) throw notFound('Member');
      await forgetMemberPairs(tx, accountId, ids);
      await deleteUncascaded(tx, accountId, ids, addresses);
      await recordAudit(tx, accountId, origin, { action: 'fan.erase', target: { type: 'fan', id: String(member.id) }, details: primary ? { emailHmac: hasher(primary) } : {} });
      return true;
    }),
  );
}
