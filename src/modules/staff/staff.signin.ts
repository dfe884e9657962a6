import { randomBytes } from 'node:crypto';
import { AppError, invalidParameter, missingParameter, rateLimited } from '../../core/errors.js';
import type { Database } from '../../db/client.js';
import { hashPassword, maxPasswordLength, verifyPassword } from '../identity/passwords.js';
import type { AddressBudget } from '../identity/login-throttle.js';
import type { IdentityServices } from '../members/identity-services.js';
import type { StaffRole } from './permissions.js';
import { findStaffByEmail, findStaffById, markSecondFactor, membershipsOfStaff, setPendingTotp, setStaffPassword, spendInvite, takeTotpStep, revokeStaffSessions } from './staff.queries.js';
import { recordAudit } from '../audit/audit.js';
import { newPassword, revokeEverywhere, staffEmail, staffOrigin, staffTarget } from './staff.service.js';
import { startSession, type StartedSession } from './staff.sessions.js';
import { readScopedToken } from './staff.tokens.js';
import { matchedStep, newTotpSecret, qrSvgDataUrl, totpUri } from './staff.totp.js';

/** What signing staff in needs of the gateway's identity services: the cipher, the login throttle, address budgets. */
export type StaffSecurity = Pick<IdentityServices, 'cipher' | 'throttle' | 'budgetAddress'>;

/** Where a request comes from, for the throttle and the session's row. */
export interface RequestOrigin {
  ip: string;
  userAgent?: string;
  /** Kept with the audit entries the request writes. */
  requestId?: string;
}

export interface SignedIn {
  session: StartedSession;
  staffId: number;
  email: string;
  accountId: number;
  accountName: string;
  role: StaffRole;
  secondFactorEnabled: boolean;
  secondFactorRequired: boolean;
  /** Signed in with a password alone while the account requires a second factor: set one up first. */
  secondFactorSetupRequired: boolean;
}

/** The password was right and the staff member has a second factor: send the code with it. */
export interface SecondFactorAsked {
  secondFactorAsked: true;
}

/** One answer for an unknown email, a wrong password, and a staff member who may not sign in: nothing tells them apart. */
export const wrongCredentials = () => new AppError('WRONG_PASSWORD', 'The email or password is wrong.', null);
const wrongCode = () => new AppError('WRONG_PASSWORD', 'The code is wrong or was already used: enter the current one from your authenticator app.', 'code');

/**
 * Checked against when the email is unknown, so an unknown address costs the same argon2 work as a
 * known one and the time taken tells nothing. Made once, from a random password nobody knows.
 */
let unknownStaffHash: Promise<string> | undefined;

function passwordInput(value: unknown, param = 'password'): string {
  if (typeof value !== 'string' || value === '') throw missingParameter(param);
  // Bounded before any work: a longer text cannot be a password (identity/passwords.ts).
  if (value.length > 4 * maxPasswordLength) throw invalidParameter(param, `a password of at most ${maxPasswordLength} characters`);
  return value;
}

function codeInput(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.length > 16) throw invalidParameter('code', 'the six digits of your authenticator app');
  return value.replace(/\s/g, '');
}

function accountInput(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const id = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > 2_147_483_647) throw invalidParameter('accountId', 'the id of an account you belong to');
  return id;
}

/**
 * Signs a staff member in with email and password, and their TOTP code when they have a second
 * factor. Throttled per email and per address exactly as fans' sign-ins are (identity/login-throttle.ts):
 * a refusal is RATE_LIMITED with the seconds to wait. A staff member on several accounts names one
 * (`accountId`), else is signed in to the one with the lowest id.
 */
export async function signIn(
  db: Database,
  security: StaffSecurity,
  input: { email: unknown; password: unknown; code?: unknown; accountId?: unknown },
  origin: RequestOrigin,
): Promise<SignedIn | SecondFactorAsked> {
  const email = staffEmail(input.email);
  const password = passwordInput(input.password);
  const code = codeInput(input.code);
  const wantedAccount = accountInput(input.accountId);

  const identity = `staff:${email.toLowerCase()}`;
  const addresses: AddressBudget[] = [{ kind: 'fan', key: `staff:${security.budgetAddress(origin.ip)}` }];
  const reservation = await security.throttle.reserve(identity, addresses);
  if (!reservation.allowed) throw rateLimited('Too many failed sign-ins for this email or from this address: wait before trying again.', reservation.retryAfterSeconds);
  let known: { staffId: number; email: string; accounts: number[] } | undefined;
  const refuse = async (error: AppError, reason: 'password' | 'code' | 'account') => {
    await security.throttle.failed(identity, reservation);
    // A failure against a known staff member is written to each account they belong to (an unknown
    // email belongs to no account); the throttle bounds how many a guesser can cause.
    for (const accountId of known?.accounts ?? []) {
      await recordAudit(db, accountId, staffOrigin(known!, origin), { action: 'staff.sign_in_failed', target: staffTarget(known!.staffId), outcome: 'failed', details: { reason } });
    }
    return error;
  };

  const staff = await findStaffByEmail(db, email);
  unknownStaffHash ??= hashPassword(randomBytes(16).toString('hex'));
  const checked = await verifyPassword(staff?.passwordHash ?? (await unknownStaffHash), password);
  const memberships = staff ? await membershipsOfStaff(db, staff.id) : [];
  if (staff) known = { staffId: staff.id, email: staff.email, accounts: memberships.map((membership) => membership.accountId) };
  if (!staff || !staff.passwordHash || staff.disabledAt || !checked.ok) throw await refuse(wrongCredentials(), 'password');
  if (checked.rehash) await setStaffPassword(db, staff.id, checked.rehash);

  const membership = wantedAccount === undefined ? memberships[0] : memberships.find((candidate) => candidate.accountId === wantedAccount);
  if (!membership) throw await refuse(wantedAccount === undefined ? wrongCredentials() : invalidParameter('accountId', 'the id of an account you belong to'), 'account');

  let secondFactor = false;
  if (staff.totpSecretSealed) {
    // The password alone proves nothing yet: counted as a failure until the code comes with it.
    if (code === undefined) {
      await security.throttle.failed(identity, reservation);
      return { secondFactorAsked: true };
    }
    const step = await matchedStep(security.cipher.open(staff.totpSecretSealed), code, staff.totpLastStep);
    if (step === undefined || !(await takeTotpStep(db, staff.id, step))) throw await refuse(wrongCode(), 'code');
    secondFactor = true;
  }

  await security.throttle.succeeded(identity, addresses);
  const session = await startSession(db, { accountId: membership.accountId, staffId: staff.id, secondFactor, ip: origin.ip, userAgent: origin.userAgent });
  await recordAudit(db, membership.accountId, staffOrigin({ staffId: staff.id, email: staff.email }, origin), {
    action: 'staff.sign_in',
    target: staffTarget(staff.id),
    details: { secondFactor },
  });
  return {
    session,
    staffId: staff.id,
    email: staff.email,
    accountId: membership.accountId,
    accountName: membership.accountName,
    role: membership.role,
    secondFactorEnabled: Boolean(staff.totpSecretSealed),
    secondFactorRequired: membership.totpRequired,
    secondFactorSetupRequired: membership.totpRequired && !staff.totpSecretSealed,
  };
}

const invalidInvite = () => new AppError('INVALID_TOKEN', 'This sign-in link is unknown, used or expired: ask an owner of the account for a new one.', 'token');

/**
 * A one-time sign-in link used: the staff member chooses their password and is signed in. The link
 * is spent in the same transaction that sets the password, so it works once; it only ever sets the
 * password of someone who belongs to the link's account alone (staff.service.ts addStaff).
 */
export async function acceptInvite(db: Database, input: { token: unknown; password: unknown }, origin: RequestOrigin): Promise<SignedIn> {
  const token = readScopedToken(input.token);
  if (!token) throw invalidInvite();
  const password = newPassword(input.password);
  const passwordHash = await hashPassword(password);
  const staffId = await db.transaction(async (tx) => {
    const spent = await spendInvite(tx, token.accountId, token.hash, new Date());
    if (!spent) throw invalidInvite();
    const memberships = await membershipsOfStaff(tx, spent.staffId);
    if (memberships.some((membership) => membership.accountId !== token.accountId)) throw invalidInvite();
    await setStaffPassword(tx, spent.staffId, passwordHash);
    await revokeStaffSessions(tx, token.accountId, spent.staffId, new Date());
    const staff = await findStaffById(tx, spent.staffId);
    await recordAudit(tx, token.accountId, staffOrigin({ staffId: staff.id, email: staff.email }, origin), { action: 'staff.password', target: staffTarget(staff.id), details: { link: true } });
    return spent.staffId;
  });
  const staff = await findStaffById(db, staffId);
  const [membership] = (await membershipsOfStaff(db, staffId)).filter((candidate) => candidate.accountId === token.accountId);
  const session = await startSession(db, { accountId: token.accountId, staffId, secondFactor: false, ip: origin.ip, userAgent: origin.userAgent });
  await recordAudit(db, token.accountId, staffOrigin({ staffId, email: staff.email }, origin), { action: 'staff.sign_in', target: staffTarget(staffId), details: { link: true } });
  const secondFactorEnabled = Boolean(staff.totpSecretSealed);
  return {
    session,
    staffId,
    email: staff.email,
    accountId: token.accountId,
    accountName: membership.accountName,
    role: membership.role,
    secondFactorEnabled,
    secondFactorRequired: membership.totpRequired,
    secondFactorSetupRequired: membership.totpRequired && !secondFactorEnabled,
  };
}

/** A signed-in staff member, as the operations below need them. */
export interface StaffSessionRef {
  staffId: number;
  email: string;
  accountId: number;
  sessionId: number;
}

/**
 * Changes the staff member's password, given the current one (throttled like a sign-in), and ends
 * every other session of theirs in every account; the session that made the change stays.
 */
export async function changePassword(db: Database, security: StaffSecurity, caller: StaffSessionRef, input: { current: unknown; next: unknown }, origin: RequestOrigin): Promise<void> {
  const current = passwordInput(input.current, 'current');
  const next = newPassword(input.next, 'next');
  const identity = `staff:${caller.email.toLowerCase()}`;
  const addresses: AddressBudget[] = [{ kind: 'fan', key: `staff:${security.budgetAddress(origin.ip)}` }];
  const reservation = await security.throttle.reserve(identity, addresses);
  if (!reservation.allowed) throw rateLimited('Too many wrong passwords: wait before trying again.', reservation.retryAfterSeconds);
  const staff = await findStaffById(db, caller.staffId);
  const checked = staff?.passwordHash ? await verifyPassword(staff.passwordHash, current) : { ok: false };
  if (!checked.ok) {
    await security.throttle.failed(identity, reservation);
    throw new AppError('WRONG_PASSWORD', 'The current password is wrong.', 'current');
  }
  await security.throttle.succeeded(identity, addresses);
  const hash = await hashPassword(next);
  await db.transaction(async (tx) => {
    await setStaffPassword(tx, caller.staffId, hash);
    await revokeEverywhere(tx, caller.staffId, { accountId: caller.accountId, sessionId: caller.sessionId });
    await recordAudit(tx, caller.accountId, staffOrigin(caller, origin), { action: 'staff.password', target: staffTarget(caller.staffId) });
  });
}

export interface TotpSetup {
  secret: string;
  uri: string;
  qrSvgDataUrl: string;
}

/** The issuer authenticator apps show beside the code. */
const totpIssuer = 'Marquee console';

/**
 * A new secret for the staff member's authenticator app, kept sealed as pending until a code from
 * the app confirms it (confirmSecondFactor); the current one, if any, works until then.
 */
export async function startSecondFactorSetup(db: Database, security: StaffSecurity, caller: StaffSessionRef): Promise<TotpSetup> {
  const secret = newTotpSecret();
  await setPendingTotp(db, caller.staffId, security.cipher.seal(secret));
  const uri = totpUri(secret, totpIssuer, caller.email);
  return { secret, uri, qrSvgDataUrl: qrSvgDataUrl(uri) };
}

/**
 * A code of the pending secret: it becomes the staff member's second factor, and this session
 * counts as having proved it. A wrong code changes nothing.
 */
export async function confirmSecondFactor(db: Database, security: StaffSecurity, caller: StaffSessionRef, codeValue: unknown, origin: RequestOrigin): Promise<void> {
  const code = codeInput(codeValue);
  if (code === undefined) throw missingParameter('code');
  const staff = await findStaffById(db, caller.staffId);
  if (!staff?.totpPendingSealed) throw new AppError('CONFLICT', 'No second factor is being set up: start the setup first.', 'code');
  const step = await matchedStep(security.cipher.open(staff.totpPendingSealed), code, staff.totpLastStep);
  if (step === undefined || !(await takeTotpStep(db, staff.id, step, { sealed: staff.totpPendingSealed }))) throw wrongCode();
  await markSecondFactor(db, caller.accountId, caller.sessionId, new Date());
  await recordAudit(db, caller.accountId, staffOrigin(caller, origin), { action: 'staff.totp', target: staffTarget(caller.staffId), details: { enabled: true } });
}
