import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import type { AuditOrigin } from '../modules/audit/audit.js';
import type { IdentityServices } from '../modules/members/identity-services.js';
import { staffOrigin } from '../modules/staff/staff.service.js';
import type { LiveStaffSession } from '../modules/staff/staff.sessions.js';
import { allowedStaff, type ConsoleRule } from './auth.js';
import type { StaffCaller } from './context.js';
import { recordDenial } from './denials.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The console session the request's cookie names, when live (console routes only). */
    staffSession?: LiveStaffSession;
  }
}

/** What the console's routes are given. */
export interface ConsoleDependencies {
  config: Config;
  database: DatabaseHandle;
  identity: IdentityServices;
}

/**
 * A module's plain console routes (an export, a download), listed in console/routes.ts. They are
 * registered inside the console's plugin, so they have its cookie, its session (`requireStaff`),
 * its CSRF check on every method but GET and HEAD, and `Cache-Control: no-store`.
 */
export type ConsoleRoutes = (app: FastifyInstance, deps: ConsoleDependencies) => void | Promise<void>;

export function callerOf(session: LiveStaffSession): StaffCaller {
  return { kind: 'staff', ...session };
}

export function userAgentOf(request: FastifyRequest): string | undefined {
  const agent = request.headers['user-agent'];
  return typeof agent === 'string' ? agent.slice(0, 512) : undefined;
}

/** Who acts, for the audit entries a console request writes: the staff member, or nobody yet (signing in). */
export function consoleAuditOrigin(request: FastifyRequest, caller: StaffCaller | undefined): AuditOrigin {
  const origin = { ip: request.ip, userAgent: userAgentOf(request), requestId: request.id };
  return caller ? staffOrigin(caller, origin) : { actor: { type: 'system', label: 'console (signed out)' }, ...origin };
}

/**
 * The signed-in staff member a console route acts as, checked exactly as a GraphQL field's
 * `@Authorized(...rules)` is (console/auth.ts): STAFF_SESSION_REQUIRED, or FORBIDDEN with the
 * `permission.denied` entry. `requireStaff(request, database, 'fans.export')`.
 */
export async function requireStaff(request: FastifyRequest, database: DatabaseHandle, ...rules: ConsoleRule[]): Promise<StaffCaller> {
  const caller = request.staffSession && callerOf(request.staffSession);
  return allowedStaff(caller, rules, (denied, permission) =>
    recordDenial(database, denied, consoleAuditOrigin(request, denied), permission, `${request.method} ${request.routeOptions.url ?? request.url}`),
  );
}
