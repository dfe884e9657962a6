import type { Executor } from '../../db/client.js';
import type { StaffRole } from './permissions.js';
import { findLiveSession, insertSession, revokeSession, touchSession } from './staff.queries.js';
import { newScopedToken, readScopedToken } from './staff.tokens.js';

/**
 * A console session ends 12 hours after sign-in whatever happens, or after 30 minutes without a
 * request. Its last use is written at most once a minute, so a busy console does not write on
 * every request (the idle limit is then exact to the minute).
 */
export const sessionLimits = {
  idleMs: 30 * 60_000,
  absoluteMs: 12 * 3600_000,
  touchEveryMs: 60_000,
} as const;

/** A live session, as each console request finds it from the cookie. */
export interface LiveStaffSession {
  sessionId: number;
  staffId: number;
  email: string;
  accountId: number;
  accountName: string;
  role: StaffRole;
  secondFactorEnabled: boolean;
  /** The account requires a second factor of its staff. */
  secondFactorRequired: boolean;
  /**
   * The session has not proved a second factor the staff member must give (one they enabled, or
   * one the account requires): until it does, it may only read the viewer and set a factor up.
   */
  owesSecondFactor: boolean;
}

export interface StartedSession {
  /** The cookie's value: the account's id and the secret (staff.tokens.ts). */
  cookieValue: string;
  sessionId: number;
  expiresAt: Date;
}

export async function startSession(db: Executor, values: { accountId: number; staffId: number; secondFactor: boolean; ip?: string; userAgent?: string }, now = new Date()): Promise<StartedSession> {
  const token = newScopedToken(values.accountId);
  const expiresAt = new Date(now.getTime() + sessionLimits.absoluteMs);
  const row = await insertSession(db, {
    accountId: values.accountId,
    staffId: values.staffId,
    tokenHash: token.hash,
    now,
    expiresAt,
    secondFactorAt: values.secondFactor ? now : null,
    ip: values.ip,
    // Kept to tell sessions apart, bounded like any input.
    userAgent: values.userAgent?.slice(0, 512),
  });
  return { cookieValue: token.value, sessionId: row.id, expiresAt };
}

/** The live session a cookie names, or undefined (no cookie, malformed, unknown, expired, revoked). */
export async function liveSession(db: Executor, cookieValue: unknown, now = new Date()): Promise<LiveStaffSession | undefined> {
  const token = readScopedToken(cookieValue);
  if (!token) return undefined;
  const row = await findLiveSession(db, token.accountId, token.hash, now, new Date(now.getTime() - sessionLimits.idleMs));
  if (!row) return undefined;
  if (now.getTime() - row.lastSeenAt.getTime() >= sessionLimits.touchEveryMs) await touchSession(db, token.accountId, row.sessionId, now);
  return {
    sessionId: row.sessionId,
    staffId: row.staffId,
    email: row.email,
    accountId: token.accountId,
    accountName: row.accountName,
    role: row.role,
    secondFactorEnabled: row.secondFactorEnabled,
    secondFactorRequired: row.totpRequired,
    owesSecondFactor: (row.secondFactorEnabled || row.totpRequired) && row.secondFactorAt === null,
  };
}

/** Signs the cookie's session out; nothing for a cookie naming no session. */
export async function endSession(db: Executor, cookieValue: unknown, now = new Date()): Promise<void> {
  const token = readScopedToken(cookieValue);
  if (token) await revokeSession(db, token.accountId, token.hash, now);
}
