import { AppError, invalidParameter, missingParameter, notFound } from '../../core/errors.js';
import type { Database, Executor } from '../../db/client.js';
import { recordAudit, type AuditOrigin } from '../audit/audit.js';
import { hashPassword, passwordProblem } from '../identity/passwords.js';
import { normaliseEmail } from '../members/members.credentials.js';
import { isStaffRole, type StaffRole } from './permissions.js';
import {
  deleteMembership,
  ensureStaffUser,
  findMembership,
  findMembershipByEmail,
  insertInvite,
  insertMembership,
  listMemberships,
  lockOwners,
  lockStaffUser,
  membershipsOfStaff,
  revokeStaffSessions,
  setStaffPassword,
  setTotpRequired,
  updateRole,
} from './staff.queries.js';
import { newScopedToken } from './staff.tokens.js';

/**
 * Staff of an account: adding them (the CLI, an owner's invitation), their roles, removing them.
 * Signing in is staff.signin.ts; sessions staff.sessions.ts; the second factor staff.totp.ts.
 */

/** How long a one-time sign-in link can be used. */
export const inviteLifetimeMs = 7 * 24 * 3600_000;

/** An email address as staff are known by: trimmed, checked, bounded (RFC 5321's 254 characters). */
export function staffEmail(value: unknown, param = 'email'): string {
  if (typeof value !== 'string' || value.trim() === '') throw missingParameter(param);
  if (value.length > 254) throw invalidParameter(param, 'an email address of at most 254 characters');
  return normaliseEmail(value, param);
}

export function staffRole(value: unknown, param = 'role'): StaffRole {
  if (typeof value !== 'string' || !isStaffRole(value)) throw invalidParameter(param, 'owner, admin, support or analyst');
  return value;
}

/** A new password, or the refusal naming `param` (length only, as for fans: identity/passwords.ts). */
export function newPassword(value: unknown, param = 'password'): string {
  if (typeof value !== 'string' || value === '') throw missingParameter(param);
  const problem = passwordProblem(value);
  if (problem) throw new AppError('INVALID_PARAMETER', problem, param);
  return value;
}

export interface AddedStaff {
  staffId: number;
  email: string;
  role: StaffRole;
  /**
   * The one-time sign-in link's token (`<account>.<secret>`), when one was made: the staff member
   * opens `/console/invite#<token>` and chooses a password. None when a password was given, or
   * when the person already signs in to another account with their own password (they sign in
   * with it and choose this account).
   */
  inviteToken?: string;
  inviteExpiresAt?: Date;
}

/**
 * Adds a staff member to the account, with a password (the CLI's `--password-stdin`) or a one-time
 * sign-in link. A staff member is one person across accounts, so a link may only set the password
 * of someone who belongs to no other account: whoever adds staff sees the link, and a link that
 * set the password of another account's staff member would hand that account over. Someone who
 * already signs in elsewhere just gains the role; someone invited elsewhere who has not chosen a
 * password yet is refused (CONFLICT) until they have.
 */
export async function addStaff(db: Database, accountId: number, input: { email: unknown; role: unknown; password?: string }, origin: AuditOrigin, now = new Date()): Promise<AddedStaff> {
  const email = staffEmail(input.email);
  const role = staffRole(input.role);
  const passwordHash = input.password === undefined ? undefined : await hashPassword(newPassword(input.password));
  return db.transaction(async (tx) => {
    const staff = await ensureStaffUser(tx, email);
    // One addition at a time per person, so two accounts adding them at once see each other.
    await lockStaffUser(tx, staff.id);
    const memberships = await membershipsOfStaff(tx, staff.id);
    if (memberships.some((membership) => membership.accountId === accountId)) {
      throw new AppError('CONFLICT', `${staff.email} is already on this account's staff.`, 'email');
    }
    const elsewhere = memberships.length > 0;
    if (elsewhere && passwordHash === undefined && !staff.passwordHash) {
      throw new AppError('CONFLICT', `${staff.email} was invited to another account and has not chosen a password yet: add them once they have.`, 'email');
    }
    await insertMembership(tx, accountId, staff.id, role);
    const added: AddedStaff = { staffId: staff.id, email: staff.email, role };
    if (passwordHash !== undefined) {
      await setStaffPassword(tx, staff.id, passwordHash);
    } else if (!elsewhere) {
      const token = newScopedToken(accountId);
      const expiresAt = new Date(now.getTime() + inviteLifetimeMs);
      await insertInvite(tx, { accountId, staffId: staff.id, tokenHash: token.hash, expiresAt });
      Object.assign(added, { inviteToken: token.value, inviteExpiresAt: expiresAt });
    }
    await recordAudit(tx, accountId, origin, { action: 'staff.add', target: staffTarget(staff.id), details: { role, link: added.inviteToken !== undefined } });
    if (passwordHash !== undefined) await recordAudit(tx, accountId, origin, { action: 'staff.password', target: staffTarget(staff.id) });
    return added;
  });
}

/** The link a staff member opens to choose a password: the token after `#`, so it never reaches a server log or a Referer. */
export function inviteLink(baseUrl: string, token: string): string {
  return `${baseUrl}/console/invite#${token}`;
}

export function listStaff(db: Executor, accountId: number) {
  return listMemberships(db, accountId);
}

function noSuchStaff() {
  return notFound('Staff member', 'staffId');
}

/**
 * Changes a staff member's role and ends their sessions in the account (they sign in again under
 * the new role). The last owner cannot step down: an account always has someone who manages it.
 */
export async function setRole(db: Database, accountId: number, staffId: number, roleInput: unknown, origin: AuditOrigin) {
  const role = staffRole(roleInput);
  return db.transaction(async (tx) => {
    const owners = await lockOwners(tx, accountId);
    const membership = await findMembership(tx, accountId, staffId);
    if (!membership) throw noSuchStaff();
    if (membership.role === role) return membership;
    if (membership.role === 'owner' && owners.length === 1) throw lastOwner('change the role of');
    await updateRole(tx, accountId, staffId, role);
    await revokeStaffSessions(tx, accountId, staffId, new Date());
    await recordAudit(tx, accountId, origin, { action: 'staff.role', target: staffTarget(staffId), details: { from: membership.role, to: role } });
    return { ...membership, role };
  });
}

/** Removes a staff member from the account; their sessions and unused links there go with the role. */
export async function removeStaff(db: Database, accountId: number, staffId: number, origin: AuditOrigin) {
  return db.transaction(async (tx) => {
    const owners = await lockOwners(tx, accountId);
    const membership = await findMembership(tx, accountId, staffId);
    if (!membership) throw noSuchStaff();
    if (membership.role === 'owner' && owners.length === 1) throw lastOwner('remove');
    await deleteMembership(tx, accountId, staffId);
    await recordAudit(tx, accountId, origin, { action: 'staff.remove', target: staffTarget(staffId), details: { role: membership.role } });
    return membership;
  });
}

/** The staff member of the account with this email (the CLI names staff by email). */
export async function staffIdByEmail(db: Executor, accountId: number, emailInput: unknown): Promise<number> {
  const membership = await findMembershipByEmail(db, accountId, staffEmail(emailInput));
  if (!membership) throw notFound('Staff member with this email', 'email');
  return membership.staffId;
}

function lastOwner(what: string) {
  return new AppError('CONFLICT', `The account's last owner: make another staff member owner first, then ${what} this one.`, 'staffId');
}

export async function requireSecondFactor(db: Database, accountId: number, required: unknown, origin: AuditOrigin) {
  if (typeof required !== 'boolean') throw invalidParameter('required', 'true or false');
  await db.transaction(async (tx) => {
    await setTotpRequired(tx, accountId, required);
    await recordAudit(tx, accountId, origin, { action: 'staff.totp', target: { type: 'account', id: String(accountId) }, details: { required } });
  });
  return required;
}

export const staffTarget = (staffId: number) => ({ type: 'staff', id: String(staffId) }) as const;

/** A staff member acting (or signing in as themselves), from where the request came. */
export function staffOrigin(staff: { staffId: number; email: string }, request: { ip?: string; userAgent?: string; requestId?: string }): AuditOrigin {
  return { actor: { type: 'staff', id: staff.staffId, label: staff.email }, ip: request.ip, userAgent: request.userAgent, requestId: request.requestId };
}

/** Ends the staff member's sessions in every account they belong to, but for the one given. */
export async function revokeEverywhere(db: Executor, staffId: number, except?: { accountId: number; sessionId: number }) {
  const now = new Date();
  // One statement per account: each names its account (the tenancy rule), and a person is on few.
  for (const { accountId } of await membershipsOfStaff(db, staffId)) {
    await revokeStaffSessions(db, accountId, staffId, now, except?.accountId === accountId ? except.sessionId : undefined);
  }
}
