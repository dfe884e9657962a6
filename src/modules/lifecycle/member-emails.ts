import { AppError, invalidParameter, rateLimited } from '../../core/errors.js';
import type { Executor, Transaction } from '../../db/client.js';
import { retryTransaction } from '../../db/errors.js';
import { hashPassword } from '../identity/passwords.js';
import { issueEmailLink, lifetimeText, openEmailLink } from '../email/email-links.js';
import { endMemberLinks, findEmailLink, spendEmailLink, type LinkPurpose } from '../email/email-links.queries.js';
import type { EmailBudget } from '../email/email-throttle.js';
import { messageValues, renderTemplate, templateOf, type EmailKind } from '../email/templates.js';
import { assertNewPassword, normaliseEmail } from '../members/members.credentials.js';
import * as q from '../members/members.queries.js';
import type { MemberRow } from '../members/members.queries.js';
import { endMemberSessions } from '../members/members.sessions.js';
import { requireMember, type MemberScope } from '../members/members.service.js';
import { markEmailVerified } from './lifecycle.service.js';
import { fanTarget, recordScopeAudit } from '../audit/audit.js';

/**
 * Verification and password-reset emails: a member asks (or an application asks for one), a
 * single-use link is issued (email/email-links.ts) and its message queued in the outbox in one
 * transaction, and following the link verifies the address or sets a new password. The pages and
 * API that call these are the widget's.
 */
export interface EmailScope extends MemberScope {
  applicationName: string;
  /** The hosted page a link opens, with the link's token (and where to go afterwards). */
  linkTo(purpose: LinkPurpose, token: string): string;
}

const kinds: Record<LinkPurpose, EmailKind> = { verify: 'verifyEmail', reset: 'resetPassword' };

function budgetsOf(scope: EmailScope, recipient: string): [EmailBudget, string][] {
  const budgets: [EmailBudget, string][] = [['recipient', `${scope.accountId}:${recipient.toLowerCase()}`]];
  if (scope.clientAddress) budgets.unshift(['client', `${scope.accountId}:${scope.clientAddress}`]);
  return budgets;
}

function tooMany(retryAfterSeconds: number): AppError {
  return rateLimited(`Too many emails asked for; try again in ${Math.ceil(retryAfterSeconds / 60)} min.`, retryAfterSeconds);
}

/** Issues the link and queues its message, together; the worker is woken once both are committed. */
async function sendLink(scope: EmailScope, member: MemberRow, purpose: LinkPurpose, recipient: string): Promise<void> {
  const { mail } = scope.identity;
  const settings = scope.settings.email;
  await scope.db.transaction(async (tx) => {
    const token = await issueEmailLink(tx, { accountId: scope.accountId, applicationId: scope.applicationId, memberId: member.id, email: recipient }, purpose);
    // No free text of the registrant's (the username least of all): the first name, bounded, is all (templates.ts).
    const message = renderTemplate(
      templateOf(settings, kinds[purpose]),
      messageValues({ link: scope.linkTo(purpose, token), application: scope.applicationName, email: recipient, firstName: member.firstName, expires: lifetimeText(purpose) }),
    );
    await mail.enqueue(tx, {
      accountId: scope.accountId,
      applicationId: scope.applicationId,
      memberId: member.id,
      kind: purpose === 'reset' ? 'reset-password' : 'verify-email',
      recipient,
      senderName: settings?.senderName ?? scope.applicationName,
      ...message,
    });
    await recordScopeAudit(tx, scope, { action: purpose === 'reset' ? 'fan.reset_sent' : 'fan.verification_sent', target: fanTarget(member.id) });
  });
  mail.wake();
}

/**
 * A reset link to the address the member signs in with, sent because staff asked (the console):
 * the member must have an email identity; the member's own budget applies, and refuses aloud (staff
 * know the member exists). Answers the address it went to.
 */
export async function sendPasswordResetToMember(scope: EmailScope, memberId: number): Promise<string> {
  const member = await requireMember(scope.db, scope.accountId, memberId);
  const [service] = (await q.servicesOfMembers(scope.db, scope.accountId, [member.id])).filter((candidate) => candidate.network === 'email');
  if (!service) throw invalidParameter('id', 'a fan who signs in with an email address and a password');
  const decision = await scope.identity.emailThrottle.take([['member', `${scope.accountId}:${member.id}`]]);
  if (!decision.allowed) throw tooMany(decision.retryAfterSeconds);
  await sendLink(scope, member, 'reset', service.uid);
  return service.uid;
}

/**
 * The checks a reset request passes before anything is looked up: a well-formed address, and the
 * budgets of the address and of the client. Both depend only on what was asked, so their answer
 * tells nothing about whether the address is registered. Answers the address to write to.
 */
export async function admitPasswordReset(scope: EmailScope, email: string): Promise<string> {
  const recipient = normaliseEmail(email ?? '');
  const decision = await scope.identity.emailThrottle.take(budgetsOf(scope, recipient));
  if (!decision.allowed) throw tooMany(decision.retryAfterSeconds);
  return recipient;
}

/**
 * After `admitPasswordReset`: the reset link goes to the address when a member signs in with it
 * by email and password; nothing happens otherwise. A member past its own budget gets nothing more
 * either, silently: refusing aloud would tell that the address is registered.
 */
export async function sendPasswordReset(scope: EmailScope, recipient: string): Promise<void> {
  const service = await q.findService(scope.db, scope.accountId, 'email', recipient.toLowerCase());
  if (!service) return;
  const member = await q.findMember(scope.db, scope.accountId, service.memberId);
  if (!member) return;
  const decision = await scope.identity.emailThrottle.take([['member', `${scope.accountId}:${member.id}`]]);
  if (!decision.allowed) return;
  await sendLink(scope, member, 'reset', recipient);
}

/** A verification link to the member's address; answers the address it went to. */
export async function sendVerificationEmail(scope: EmailScope, memberId: number): Promise<string> {
  const member = await requireMember(scope.db, scope.accountId, memberId);
  if (!member.email) throw invalidParameter('id', 'a member with an email address');
  const decision = await scope.identity.emailThrottle.take([...budgetsOf(scope, member.email), ['member', `${scope.accountId}:${member.id}`]]);
  if (!decision.allowed) throw tooMany(decision.retryAfterSeconds);
  await sendLink(scope, member, 'verify', member.email);
  return member.email;
}

const linkRefusals = {
  invalid: 'This link is not valid. Ask for a new email.',
  expired: 'This link has expired. Ask for a new email.',
  used: 'This link has been used already. Ask for a new email if you need one.',
  changed: 'This link was sent to an address the account no longer uses. Ask for a new email.',
  ended: 'This link no longer works: the account’s password, address or sign-ins changed since it was sent. Ask for a new email.',
} as const;

export type LinkRefusal = keyof typeof linkRefusals;

/** A link that does nothing, and why: the hosted pages show the message, the API answers it as INVALID_TOKEN. */
export class LinkRefused extends AppError {
  constructor(readonly reason: LinkRefusal) {
    super('INVALID_TOKEN', linkRefusals[reason], 'token');
  }
}

/** The member a reset link may set a password for, without spending it (the page that asks for the password). */
export async function checkResetLink(scope: EmailScope, token: string | undefined) {
  const opened = await openEmailLink(scope.db, scope, 'reset', token);
  if (opened.status !== 'valid') throw new LinkRefused(opened.status);
  const service = await q.findService(scope.db, scope.accountId, 'email', opened.link.email.toLowerCase());
  // The member signs in with another address now, or the address went to another member by a merge.
  if (!service || service.memberId !== opened.link.memberId) throw new LinkRefused('changed');
  return { link: opened.link, service };
}

/**
 * Sets the new password: the password of the email identity replaced, the link spent, every other
 * session of the member ended (and its access token renewed), and the member's other links ended,
 * in one transaction. The identity's row is written first and the member's row locked next, the
 * order of a sign-in, an API reset and an address change, so the spend reads the session generation
 * as the last of them committed it: a reset or revocation that raced the link and committed first
 * leaves the link refused, and one that comes after it ends what it set. A second use of the link
 * finds it spent and changes nothing.
 */
export async function completePasswordReset(scope: EmailScope, token: string | undefined, password: string): Promise<MemberRow> {
  const { link, service } = await checkResetLink(scope, token);
  assertNewPassword(password ?? '');
  const passwordHash = await hashPassword(password);
  const now = new Date();
  // A deadlock against a merge (which locks the members first) runs again: the spend then finds the raised generation.
  await retryTransaction(() =>
    scope.db.transaction(async (tx) => {
      await q.updateService(tx, scope.accountId, service.id, { passwordHash });
      await q.lockMembers(tx, scope.accountId, [link.memberId]);
      if (!(await spendEmailLink(tx, scope.accountId, link.id, now))) throw new LinkRefused(await refusalNow(tx, scope, link.id));
      await endMemberSessions(tx, scope.identity.cipher, scope.accountId, link.memberId, now);
      await endMemberLinks(tx, scope.accountId, link.memberId);
    }),
  );
  return requireMember(scope.db, scope.accountId, link.memberId);
}

/** Why a link that was valid when opened could not be spent: used meanwhile, expired, or its member's sessions ended. */
async function refusalNow(db: Executor, scope: EmailScope, id: number): Promise<LinkRefusal> {
  const link = await findEmailLink(db, scope.accountId, id);
  if (!link || link.usedAt) return 'used';
  if (link.expiresAt <= new Date()) return 'expired';
  return 'ended';
}

/**
 * The member a verification link would verify the address of, without spending it (the page the
 * link opens, which asks for a confirmation): the member must still have the address.
 */
export async function checkVerificationLink(scope: EmailScope, token: string | undefined) {
  const opened = await openEmailLink(scope.db, scope, 'verify', token);
  if (opened.status !== 'valid') throw new LinkRefused(opened.status);
  const { link } = opened;
  const member = await requireMember(scope.db, scope.accountId, link.memberId);
  if (member.id !== link.memberId || member.email?.toLowerCase() !== link.email.toLowerCase()) throw new LinkRefused('changed');
  return { link, member };
}

/**
 * Verifies the address the link was sent to, if the member still has it, as the API's verification
 * does: for this member only. An address another member holds is refused (EMAIL_IN_USE) and the
 * link stays unspent; otherwise the link is spent in the transaction that records the address.
 */
export async function completeEmailVerification(scope: EmailScope, token: string | undefined): Promise<MemberRow> {
  const { link, member } = await checkVerificationLink(scope, token);
  const service = await q.findService(scope.db, scope.accountId, 'email', link.email.toLowerCase());
  const before = async (tx: Transaction) => {
    if (!(await spendEmailLink(tx, scope.accountId, link.id, new Date()))) throw new LinkRefused(await refusalNow(tx, scope, link.id));
  };
  return (await markEmailVerified(scope, member, service?.memberId === member.id ? service : undefined, link.email, { param: 'token', before })).member;
}
