import { decodeJwt } from 'jose';
import type { ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { InputErrors, type InputPaths, type InputProblem } from '../../core/user-errors.js';
import { accessTokenLifetimeMs } from '../identity/access-tokens.js';
import { openForAnswer } from './members.mapping.js';
import type { MemberRow } from './members.queries.js';
import type { MemberSession } from './members.payloads.js';
import type { MemberRef } from './members.types.js';

/**
 * What the payload mutations of a member form share (memberRegister, memberLogin, memberUpdate):
 * checking every argument before anything is written, where a service's single error sits in the
 * input, and the session a sign-in answers.
 */

/**
 * Runs every check in order, awaiting each, even after one fails; when any threw an AppError,
 * throws InputErrors with all of them, each under its argument's path (a check's own InputErrors
 * keep their paths below it). The async counterpart of validateAll, for checks that read the
 * database (a member named, a segment): they must not write.
 */
export async function checkArguments(checks: readonly (readonly [path: string[], check: () => unknown])[]): Promise<unknown[]> {
  const values: unknown[] = [];
  const problems: InputProblem[] = [];
  for (const [path, check] of checks) {
    try {
      values.push(await check());
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      values.push(undefined);
      problems.push(...(error instanceof InputErrors ? error.problems.map((problem) => ({ path: [...path, ...problem.path], error: problem.error })) : [{ path, error }]));
    }
  }
  if (problems.length > 0) throw new InputErrors(problems);
  return values;
}

/** The path of the field a MemberRef names its member by: ["member", "email"] for `{ email }`. */
export function memberRefPath(ref: MemberRef, argument = 'member'): string[] {
  const given = (Object.keys(ref) as (keyof MemberRef)[]).find((key) => ref[key] !== undefined && ref[key] !== null);
  return [argument, given ?? 'id'];
}

/** Where a sign-in's single errors sit: the services name the credentials' fields and the visit's domain. */
export const signInPaths: InputPaths = {
  params: {
    network: ['input', 'credentials', 'network'],
    email: ['input', 'credentials', 'email'],
    password: ['input', 'credentials', 'password'],
    authToken: ['input', 'credentials', 'authToken'],
    uid: ['input', 'credentials', 'uid'],
    partnerCode: ['input', 'credentials', 'partnerCode'],
    partnerId: ['input', 'credentials', 'partnerId'],
    domain: ['input', 'visit', 'domain'],
    segmentId: ['input', 'segmentId'],
  },
  fallback: ['input'],
};

/**
 * The session a sign-in answers for the member row the service answered: a JWT of that row's
 * session generation, and the access token it holds (never a later one, as envelope() does).
 */
export async function sessionOf(context: Context, caller: ApplicationCaller, row: MemberRow): Promise<MemberSession> {
  const jwt = await context.identity.signingKeys.sign({ accountId: caller.accountId, applicationId: caller.applicationId, memberId: row.id, sessionGeneration: row.sessionGeneration });
  const accessToken = openForAnswer(context, row.accessTokenSealed, { memberId: row.id, field: 'session.accessToken' });
  // Logged by openForAnswer: a token sealed under another SECRET_KEY cannot make a session.
  if (accessToken === null) throw new Error("The member's access token could not be opened.");
  return {
    jwt,
    jwtExpiresAt: new Date((decodeJwt(jwt).exp ?? 0) * 1000),
    accessToken,
    accessTokenExpiresAt: new Date(row.accessTokenIssuedAt.getTime() + accessTokenLifetimeMs),
  };
}
