import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseHandle } from '../db/client.js';
import type { AuditOrigin } from '../modules/audit/audit.actions.js';
import type { IdentityServices } from '../modules/members/identity-services.js';
import type { StaffRole } from '../modules/staff/permissions.js';

/** A signed-in staff member, as their session cookie shows them: one account, one role. */
export interface StaffCaller {
  kind: 'staff';
  staffId: number;
  email: string;
  accountId: number;
  accountName: string;
  role: StaffRole;
  sessionId: number;
  secondFactorEnabled: boolean;
  /** The account requires a second factor of its staff. */
  secondFactorRequired: boolean;
  /**
   * The session has not proved a second factor it must (one the staff member enabled, or one the
   * account requires): until it does, only the fields marked `@Authorized('secondFactorSetup')` answer.
   */
  owesSecondFactor: boolean;
}

/**
 * What a console resolver is given for one request. Only the console's plugin builds it, from the
 * session cookie: no API key or member token is accepted on /console.
 */
export interface ConsoleContext {
  requestId: string;
  log: FastifyBaseLogger;
  database: DatabaseHandle;
  /** Absent when the request carries no live session (the viewer query answers null). */
  caller?: StaffCaller;
  /** The identity side's helpers (token sealing, throttles, networks), shared with the public API. */
  identity: IdentityServices;
  /** Who and where, for the audit entries the request writes. */
  audit: AuditOrigin;
  clientAddress?: string;
  /** The gateway's address as the staff member reached it (PUBLIC_URL, or the allowed Host): links are built on it. */
  baseUrl?: string;
}
