import { eq } from 'drizzle-orm';
import { consoleCookie } from '../../src/console/cookies.js';
import { staffRoles, staffUsers } from '../../src/db/schema/index.js';
import { hashPassword } from '../../src/modules/identity/passwords.js';
import type { StaffRole } from '../../src/modules/staff/permissions.js';
import { startSession } from '../../src/modules/staff/staff.sessions.js';
import type { TestGateway } from './gateway.js';

/** The headers every console POST carries (console/csrf.ts): the console's own proof, and JSON. */
export const csrfHeaders: Readonly<Record<string, string>> = { 'x-console-csrf': '1', 'content-type': 'application/json' };

export interface SignedInStaff {
  /** The `Cookie` header value: the console's session cookie. */
  cookie: string;
  /** The headers a console POST needs besides the cookie (x-console-csrf, content-type). */
  csrfHeaders: Record<string, string>;
  staffId: number;
  email: string;
  accountId: number;
  sessionId: number;
}

let staffCounter = 0;

/**
 * A staff member of the account with the role, and a live session for them, made directly in the
 * database (no sign-in request, no argon2 unless a password is asked for): for tests of console
 * operations. `secondFactor`: the session proved one (for an account that requires it).
 */
export async function signInStaff(
  t: Pick<TestGateway, 'database' | 'config'>,
  options: { accountId: number; role: StaffRole; email?: string; password?: string; secondFactor?: boolean },
): Promise<SignedInStaff> {
  const db = t.database.db;
  staffCounter += 1;
  const email = options.email ?? `staff-${process.pid}-${staffCounter}-${options.role}@example.com`;
  const passwordHash = options.password === undefined ? null : await hashPassword(options.password);
  let [user] = await db.select().from(staffUsers).where(eq(staffUsers.email, email));
  user ??= (await db.insert(staffUsers).values({ email, passwordHash }).returning())[0];
  await db.insert(staffRoles).values({ accountId: options.accountId, staffId: user.id, role: options.role }).onConflictDoNothing();
  const session = await startSession(db, { accountId: options.accountId, staffId: user.id, secondFactor: options.secondFactor ?? false });
  return {
    cookie: `${consoleCookie(t.config).name}=${session.cookieValue}`,
    csrfHeaders: { ...csrfHeaders },
    staffId: user.id,
    email,
    accountId: options.accountId,
    sessionId: session.sessionId,
  };
}

export interface ConsoleAnswer<T = any> {
  status: number;
  body: { data?: T; errors?: { message: string; extensions: { code: string; param?: string | null } }[] };
  headers: Record<string, unknown>;
}

/** A GraphQL operation posted to /console/graphql as the signed-in staff member (or signed out, with `null`). */
export async function consoleGraphql<T = any>(t: Pick<TestGateway, 'request'>, staff: Pick<SignedInStaff, 'cookie'> | null, query: string, variables?: Record<string, unknown>): Promise<ConsoleAnswer<T>> {
  const response = await t.request({
    method: 'POST',
    url: '/console/graphql',
    headers: { ...csrfHeaders, ...(staff ? { cookie: staff.cookie } : {}) },
    payload: { query, variables },
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}
