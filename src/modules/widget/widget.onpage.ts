import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, invalidParameter, rateLimited } from '../../core/errors.js';
import { memberByAccessToken } from '../members/members.service.js';
import { optInMember, registrationSegment } from '../segments/optins.service.js';
import type { OptInList } from '../segments/optins.queries.js';
import { sessionCookieName, type cookiePolicy } from './widget.cookies.js';
import type { WidgetDependencies } from './widget.http.js';
import { allowOrigin } from './widget.origin.js';
import { missingFields, readProfileForm, registrationFields, type FormField } from './widget.profile.js';
import { checkedReturnUrl, endSession, issueSignInToken, sessionTtlMs, startSession, widgetApplication, type CheckedMember, type SessionStart } from './widget.service.js';
import { flowScope, onPageReason, registerWithEmail, signInWithEmail, SignInRefused } from './widget.signin.js';
import { widgetUser } from './widget.user.js';
import { hostedBaseUrl, widgetUrls, withQuery } from './widget.urls.js';

type Body = Record<string, string | string[] | undefined>;

/** The refusal of an on-page sign-in from an address past its "no such account" answers (code 6, with Retry-After). */
function tooManyUnknown(retryAfterSeconds: number): AppError {
  return rateLimited(`Too many sign-ins with unknown addresses from this address; retry in ${retryAfterSeconds} s.`, retryAfterSeconds);
}

/** Opt-in lists one form may name: a page shows a handful of checkboxes. */
const maxOptIns = 10;

const text = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The on-page flow: what `aeJS` calls from the application's own page when the page stays where it
 * is (`data-ae-register-form="email"`, `trigger.login(accesstoken)`). Simple, preflight-free form
 * POSTs answered with JSON and credentialed CORS to whitelisted origins; a success sets the session
 * cookie as the hosted pages do. Unlike the hosted pages, a refusal names its reason with AE's codes
 * (13 no such account, 18 wrong password), as AE's framework does: docs/widget.md, "The on-page flow".
 * The 13s an address is given are bounded (identity/no-account-answers.ts), and an application may
 * answer 18 for both (`signInErrors: uniform`).
 */
export function registerOnPageRoutes(app: FastifyInstance, deps: WidgetDependencies, policy: ReturnType<typeof cookiePolicy>) {
  const db = deps.database.db;

  async function signedIn(request: FastifyRequest, reply: FastifyReply) {
    const row = await widgetApplication(db, (request.params as { applicationId: string }).applicationId);
    const widgetApp = { accountId: row.accountId, applicationId: row.id };
    await allowOrigin(db, widgetApp, request, reply, deps.config.env === 'production');
    return { row, widgetApp };
  }

  async function startFor(request: FastifyRequest, reply: FastifyReply, widgetApp: { accountId: number; applicationId: number }, member: CheckedMember, beganWith: SessionStart) {
    const name = sessionCookieName(widgetApp.applicationId);
    await endSession(db, widgetApp, request.cookies[name]);
    reply.setCookie(name, await startSession(db, widgetApp, member, beganWith), { ...policy.session, maxAge: sessionTtlMs / 1000 });
  }

  /** The lists the form's checked opt-ins name, checked before anything is written. */
  async function optInLists(accountId: number, body: Body): Promise<OptInList[]> {
    const named = [body.optin ?? [], body.segment ?? []].flat().filter((value) => value !== '');
    if (named.length > maxOptIns) throw invalidParameter('optin', `at most ${maxOptIns} opt-ins`);
    const lists: OptInList[] = [];
    for (const value of new Set(named)) {
      const list = await registrationSegment(db, accountId, value);
      if (list) lists.push(list);
    }
    return lists;
  }

  app.post('/framework/session/:applicationId/email', { config: { kind: 'rest' } }, async (request, reply) => {
    const { row, widgetApp } = await signedIn(request, reply);
    const body = (request.body ?? {}) as Body;
    const type = text(body.type) ?? 'register';
    if (type !== 'register' && type !== 'login') throw invalidParameter('type', '`register` or `login`');
    const returnUrl = await checkedReturnUrl(db, widgetApp, text(body.return));
    const lists = await optInLists(row.accountId, body);
    const scope = flowScope(db, row, deps.identity, request.ip);
    const mode = row.settings.signInErrors ?? 'distinct';
    // Distinct answers tell an unknown address from a known one: an address that had its share of
    // "no such account" answers signs in no more for a while, whatever address it names.
    const answersKey = `${row.accountId}:${scope.clientAddress}`;
    if (type === 'login' && mode === 'distinct') {
      const wait = await deps.identity.noAccountAnswers.spentFor(answersKey);
      if (wait > 0) throw tooManyUnknown(wait);
    }
    const visit = { domain: returnUrl.hostname, ip: request.ip, userAgent: request.headers['user-agent'] };
    const email = text(body.email) ?? '';
    const password = text(body.password) ?? '';
    // The page's own form shows what it likes: nothing in it is required here; the completion step asks.
    const fields = registrationFields(row.settings.requiredFields).map((field): FormField => ({ ...field, required: false }));
    const form = readProfileForm(fields, Object.fromEntries(Object.entries(body).map(([key, value]) => [key, text(value)])));
    if (form.error !== undefined) throw invalidParameter(form.field ?? 'form', form.error);
    let result;
    try {
      result = type === 'login' ? { member: await signInWithEmail(scope, email, password, visit), created: false } : await registerWithEmail(scope, email, password, form.input, visit);
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      const reason = onPageReason(error, mode);
      if (reason.extensions.code === 'NO_ACCOUNT') {
        const wait = await deps.identity.noAccountAnswers.take(answersKey);
        if (wait > 0) throw tooManyUnknown(wait);
      }
      throw reason;
    }
    const { member, created } = result;
    for (const list of lists) await optInMember(scope, member.id, list);
    const beganWith: SessionStart = created ? 'registration' : 'login';
    await startFor(request, reply, widgetApp, member, beganWith);
    const missing = missingFields(member, row.settings.requiredFields);
    const urls = widgetUrls(hostedBaseUrl(deps.config, request), row.id);
    return {
      user: await widgetUser(db, widgetApp, member.id),
      type: beganWith,
      // For the site's server, as the redirect's `?accesstoken=` is: single use, five minutes.
      accesstoken: await issueSignInToken(db, widgetApp, member),
      requiredFields: missing,
      completeUrl: missing.length ? withQuery(urls.complete, { return: returnUrl.toString() }) : null,
    };
  });

  // `trigger.login(accesstoken)`: a member's own access token (from the API, e.g. a mobile app's) starts a session.
  app.post('/framework/session/:applicationId/token', { config: { kind: 'rest' } }, async (request, reply) => {
    const { widgetApp } = await signedIn(request, reply);
    const token = text(((request.body ?? {}) as Body).accesstoken) ?? '';
    const member = token.length <= 200 ? await memberByAccessToken(db, widgetApp.accountId, token) : undefined;
    if (!member) throw new AppError('INVALID_TOKEN', 'The access token is unknown, expired or ended.', 'accesstoken');
    // Under the generation the token was read with: a reset since (a new token) starts nothing.
    await startFor(request, reply, widgetApp, member, 'login');
    return { user: await widgetUser(db, widgetApp, member.id), type: 'login' };
  });
}
