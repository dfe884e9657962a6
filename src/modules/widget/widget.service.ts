import { randomBytes } from 'node:crypto';
import type { Database, Executor } from '../../db/client.js';
import { AppError, notFound } from '../../core/errors.js';
import { withoutCredentials } from '../../lib/url-credentials.js';
import { digestToken } from '../identity/access-tokens.js';
import { findApplicationById, listWhitelist } from '../tenancy/tenancy.queries.js';
import * as q from './widget.queries.js';

/** A sign-in token only has to survive one redirect and one server-to-server call. */
export const signInTokenTtlMs = 5 * 60_000;
/** How long a fan stays signed in on an application's sites without signing in again. */
export const sessionTtlMs = 30 * 24 * 3600_000;

export interface WidgetApplication {
  accountId: number;
  applicationId: number;
}

/** 256 random bits, URL-safe: unguessable, so a plain digest is a safe way to store it. */
function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The application of a public widget URL (`/framework/.../:applicationId`), or not found. */
export async function widgetApplication(db: Executor, idText: string) {
  const id = /^\d{1,9}$/.test(idText) ? Number(idText) : NaN;
  const application = Number.isSafeInteger(id) ? await findApplicationById(db, id) : undefined;
  if (!application) throw notFound('Application', 'applicationId');
  return application;
}

/** The host of an http(s) URL or origin, lower case; undefined when the text is not one. */
export function hostOf(text: string | undefined): string | undefined {
  if (!text) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** True when the URL's host is on the application's whitelist (exact host names). */
export async function isWhitelisted(db: Executor, app: WidgetApplication, url: string | undefined): Promise<boolean> {
  const host = hostOf(url);
  if (!host) return false;
  return (await listWhitelist(db, app.accountId, app.applicationId)).includes(host);
}

export function domainNotWhitelisted(what: string, param: string | null): AppError {
  return new AppError('DOMAIN_NOT_WHITELISTED', `${what} is not on a domain whitelisted for this application.`, param);
}

/**
 * The return URL of the flow, refused unless its host is whitelisted; without the credentials it
 * may carry (lib/url-credentials.ts): a page's own address right after a sign-in holds the
 * sign-in token, and the return URL is copied into links, emails and logs.
 */
export async function checkedReturnUrl(db: Executor, app: WidgetApplication, returnUrl: string | undefined): Promise<URL> {
  if (!returnUrl || !(await isWhitelisted(db, app, returnUrl))) throw domainNotWhitelisted('The return URL', 'return');
  return withoutCredentials(new URL(returnUrl));
}

/**
 * The return URL of a hosted page that also opens without one (the bare `LoginURL`): undefined when
 * none is given (absent or empty), and one that is given is refused unless whitelisted, as
 * `checkedReturnUrl` refuses it.
 */
export async function optionalReturnUrl(db: Executor, app: WidgetApplication, returnUrl: string | undefined): Promise<URL | undefined> {
  return returnUrl ? checkedReturnUrl(db, app, returnUrl) : undefined;
}

export function withAccessToken(returnUrl: URL, token: string): string {
  const url = new URL(returnUrl);
  url.searchParams.set('accesstoken', token);
  return url.toString();
}

/**
 * A member as a sign-in checked it: its id and the session generation its credentials (password,
 * access token, session) were read under. Sessions and sign-in tokens are minted under that
 * generation or not at all, so a reset committed after the check ends them, or refuses them.
 */
export interface CheckedMember {
  id: number;
  sessionGeneration: number;
}

/** The member's sessions ended (a reset, merge or revocation) between the sign-in's check and its mint: nothing was minted. */
export function sessionsEndedMeanwhile(): AppError {
  return new AppError('INVALID_TOKEN', 'The sign-in was ended (the password was changed or the sessions revoked) before it completed; sign in again.', null);
}

export async function issueSignInToken(db: Database, app: WidgetApplication, member: CheckedMember, now = new Date()): Promise<string> {
  const token = newSecret();
  await q.deleteStaleSignInTokens(db, app.accountId, now);
  const issued = await q.insertSignInToken(db, {
    ...app,
    memberId: member.id,
    sessionGeneration: member.sessionGeneration,
    tokenHash: digestToken(token),
    expiresAt: new Date(now.getTime() + signInTokenTtlMs),
  });
  if (!issued) throw sessionsEndedMeanwhile();
  return token;
}

/**
 * The member a sign-in token stands for, spending the token. Unknown, spent, expired and other
 * applications' tokens all get the same answer, so the answer tells nothing about the token.
 */
export async function exchangeSignInToken(db: Executor, app: WidgetApplication, token: string, now = new Date()): Promise<number> {
  const trimmed = token.trim();
  const spent = trimmed ? await q.spendSignInToken(db, { accountId: app.accountId, applicationId: app.applicationId, tokenHash: digestToken(trimmed), now }) : undefined;
  if (!spent) throw new AppError('INVALID_TOKEN', 'The access token is unknown, expired or already used.', 'accessToken');
  return spent.memberId;
}

/** How a session began: the page's `onLogin(user, type)` says `registration` or `login`. */
export type SessionStart = 'registration' | 'login';

/** A new session for the fan, under the generation its sign-in checked; the returned value goes into the session cookie. */
export async function startSession(db: Executor, app: WidgetApplication, member: CheckedMember, beganWith: SessionStart = 'login', now = new Date()): Promise<string> {
  const value = newSecret();
  const started = await q.insertSession(db, {
    ...app,
    memberId: member.id,
    sessionGeneration: member.sessionGeneration,
    beganWith,
    sessionHash: digestToken(value),
    expiresAt: new Date(now.getTime() + sessionTtlMs),
  });
  if (!started) throw sessionsEndedMeanwhile();
  return value;
}

/** The live session of the cookie: its member, the generation it was started under, how it began. */
export async function findSession(db: Executor, app: WidgetApplication, cookie: string | undefined): Promise<{ memberId: number; sessionGeneration: number; beganWith: SessionStart } | undefined> {
  if (!cookie) return undefined;
  const session = await q.findSession(db, app, digestToken(cookie), new Date());
  return session && { memberId: session.memberId, sessionGeneration: session.sessionGeneration, beganWith: session.beganWith === 'registration' ? 'registration' : 'login' };
}

export async function sessionMemberId(db: Executor, app: WidgetApplication, cookie: string | undefined): Promise<number | undefined> {
  return (await findSession(db, app, cookie))?.memberId;
}

/** Ends the session (and sweeps the application's expired ones). */
export async function endSession(db: Executor, app: WidgetApplication, cookie: string | undefined): Promise<void> {
  if (cookie) await q.deleteSession(db, app, digestToken(cookie), new Date());
}
