import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, invalidParameter, notFound, retryAfterSecondsOf } from '../../../core/errors.js';
import { requireMember, updateMemberProfile } from '../../members/members.service.js';
import type { MemberRow } from '../../members/members.queries.js';
import { locate } from '../../../lib/geoip.js';
import { withoutCredentials } from '../../../lib/url-credentials.js';
import { displayName, type ExternalNetwork, type Network } from '../../networks/networks.js';
import { oauthCookieName, sessionCookieName, type cookiePolicy } from '../widget.cookies.js';
import type { WidgetDependencies } from '../widget.http.js';
import { authorizationRequest, completeAuthorization, type PendingAuthorization } from '../widget.oauth.js';
import { checkAuthorizationEndpoint } from '../sign-in-providers.js';
import { hostedPageLook } from '../look.js';
import { completionFields, missingFields, readProfileForm, registrationFields, type FormField } from '../widget.profile.js';
import {
  domainNotWhitelisted,
  endSession,
  findSession,
  isWhitelisted,
  issueSignInToken,
  optionalReturnUrl,
  sessionMemberId,
  sessionTtlMs,
  startSession,
  type SessionStart,
  widgetApplication,
  withAccessToken,
} from '../widget.service.js';
import { flowScope, registerWithEmail, signInWithEmail, signInWithNetwork, SignInRefused } from '../widget.signin.js';
import { hostedBaseUrl, widgetUrls, withQuery } from '../widget.urls.js';
import { listWhitelist } from '../../tenancy/tenancy.queries.js';
import { registerEmailFlowRoutes } from './email.routes.js';
import { formPage, sendPage } from './flow.pages.js';
import { completePage, loginPage, logoutPage, messagePage, registerPage } from './pages.js';
import { minPasswordLength } from '../../identity/passwords.js';

type Body = Record<string, string | undefined>;
const loginRefused = 'The email address or password is not right.';
const registerRefused = 'We could not create an account with these details. If you have registered before, sign in instead.';
const tooMany = 'Too many attempts. Wait a few minutes, then try again.';

/**
 * The hosted pages: sign in, register, complete the profile, log out, and social sign-in through
 * the network's provider. Every success ends in `finish`: the fan's session cookie is set, missing
 * required fields are asked for, and the browser goes to the whitelisted return URL with a token.
 * A page opened without a return URL (the bare `LoginURL` of app/info) works too, and its flow ends
 * on the signed-in page instead, with no token (nobody waits for one); a return URL that is given
 * is refused unless whitelisted (docs/widget.md, "The flow").
 */
export async function registerFlowRoutes(app: FastifyInstance, deps: WidgetDependencies, policy: ReturnType<typeof cookiePolicy>) {
  const db = deps.database.db;
  const oauthOptions = { cipher: deps.identity.cipher, allowHttp: deps.config.env !== 'production' };
  const prefix = '/framework/flow/:applicationId';
  // @fastify/csrf-protection's check as a function of its own (it reads no `this`; its type declares a method).
  const csrfProtection = (request: FastifyRequest, reply: FastifyReply, done: () => void) => app.csrfProtection(request, reply, done);

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof AppError) {
      const { code, aeCode } = error.extensions;
      if (code === 'DOMAIN_NOT_WHITELISTED') {
        return sendPage(reply, 403, messagePage('This site cannot use this sign-in', 'The page you came from, or the page you would return to, is not whitelisted for this application.', aeCode));
      }
      if (code === 'NOT_FOUND') return sendPage(reply, 404, messagePage('Not found', error.message, aeCode));
      const retryAfter = retryAfterSecondsOf(error);
      if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
      return sendPage(reply, error.extensions.http.status, messagePage('Something is not right', error.message, aeCode));
    }
    if (String((error as { code?: unknown }).code).startsWith('FST_CSRF')) {
      return sendPage(reply, 403, messagePage('This form has expired', 'Go back, reload the page and try again.'));
    }
    request.log.error({ err: error }, 'sign-in flow failed');
    return sendPage(reply, 500, messagePage('Something went wrong', `Please try again. If it keeps happening, quote ${request.id}.`));
  });

  async function flowOf(request: FastifyRequest) {
    const row = await widgetApplication(db, (request.params as { applicationId: string }).applicationId);
    const widgetApp = { accountId: row.accountId, applicationId: row.id };
    const look = await hostedPageLook(db, row);
    return { row, widgetApp, look, urls: widgetUrls(hostedBaseUrl(deps.config, request), row.id), scope: flowScope(db, row, deps.identity, request.ip) };
  }
  type Flow = Awaited<ReturnType<typeof flowOf>>;

  const cookieOf = (request: FastifyRequest, flow: Flow) => request.cookies[sessionCookieName(flow.row.id)];
  // The site the fan came from is the return URL's host; without one, the fan signed in on the gateway's own page.
  const visitOf = (request: FastifyRequest, flow: Flow, returnUrl: URL | undefined) => ({
    domain: (returnUrl ?? new URL(flow.urls.login)).hostname,
    ip: request.ip,
    userAgent: request.headers['user-agent'],
  });
  const returnOf = (flow: Flow, returnText: string | undefined) => optionalReturnUrl(db, flow.widgetApp, returnText);

  /**
   * The return URL of a page that signs a fan in or up (sign-in, registration, social sign-in). Opened
   * bare, such a page is refused (the code 16 page) when the application whitelists no domain: it has
   * no site, so nothing of it is meant to take fans, and its bare pages would create members for it
   * for anyone who found its id. With a return URL, the whitelist check itself refuses every one.
   */
  async function entryReturnOf(flow: Flow, returnText: string | undefined): Promise<URL | undefined> {
    const returnUrl = await returnOf(flow, returnText);
    if (!returnUrl && !(await listWhitelist(db, flow.row.accountId, flow.row.id)).length) {
      throw domainNotWhitelisted('This application has no whitelisted domain, so its hosted sign-in', null);
    }
    return returnUrl;
  }

  /** A member row minted for under `sessionGeneration`: the generation its sign-in was checked under. */
  const checkedUnder = (member: MemberRow, sessionGeneration: number): MemberRow => ({ ...member, sessionGeneration });

  /** Mints under `member.sessionGeneration`, which must be the generation the sign-in checked (widget.service.ts, `CheckedMember`). */
  async function finish(request: FastifyRequest, reply: FastifyReply, flow: Flow, member: MemberRow, returnUrl: URL | undefined, beganWith: SessionStart = 'login') {
    const name = sessionCookieName(flow.row.id);
    if ((await sessionMemberId(db, flow.widgetApp, request.cookies[name])) !== member.id) {
      await endSession(db, flow.widgetApp, request.cookies[name]);
      reply.setCookie(name, await startSession(db, flow.widgetApp, member, beganWith), { ...policy.session, maxAge: sessionTtlMs / 1000 });
    }
    if (missingFields(member, flow.row.settings.requiredFields).length) {
      return reply.redirect(withQuery(flow.urls.complete, { return: returnUrl?.toString() }), 303);
    }
    if (!returnUrl) return reply.redirect(flow.urls.signedIn, 303);
    return reply.redirect(withAccessToken(returnUrl, await issueSignInToken(db, flow.widgetApp, member)), 303);
  }

  // ——— email sign-in ———

  app.get(`${prefix}/login`, async (request, reply) => {
    const flow = await flowOf(request);
    const returnUrl = await entryReturnOf(flow, (request.query as Body).return);
    // Signed in on this application already: straight back with a new token.
    const signedIn = await signedInMember(request, flow);
    if (signedIn) return finish(request, reply, flow, signedIn, returnUrl);
    return sendPage(reply, 200, loginPage(formPage(flow.row, flow.urls, reply, 'login', returnUrl, flow.look)));
  });

  app.post(`${prefix}/login`, { preHandler: csrfProtection }, async (request, reply) => {
    const flow = await flowOf(request);
    const body = (request.body ?? {}) as Body;
    const returnUrl = await entryReturnOf(flow, body.return);
    const again = (status: number, error: string) => sendPage(reply, status, loginPage(formPage(flow.row, flow.urls, reply, 'login', returnUrl, flow.look, { error, values: { email: body.email } })));
    try {
      const member = await signInWithEmail(flow.scope, body.email ?? '', body.password ?? '', visitOf(request, flow, returnUrl));
      return await finish(request, reply, flow, member, returnUrl);
    } catch (error) {
      if (error instanceof SignInRefused) return again(401, loginRefused);
      if (error instanceof AppError && error.extensions.code === 'RATE_LIMITED') return again(429, tooMany);
      throw error;
    }
  });

  // ——— registration ———

  app.get(`${prefix}/register`, async (request, reply) => {
    const flow = await flowOf(request);
    const returnUrl = await entryReturnOf(flow, (request.query as Body).return);
    const fields = registrationFields(flow.row.settings.requiredFields);
    // The country the registration would record from the fan's address anyway, shown so it can be changed.
    const country = fields.some((field) => field.name === 'country') ? (await locate(request.ip))?.country : undefined;
    return sendPage(reply, 200, registerPage(formPage(flow.row, flow.urls, reply, 'register', returnUrl, flow.look, { fields, values: { country } })));
  });

  async function register(request: FastifyRequest, reply: FastifyReply, embedded: boolean) {
    const flow = await flowOf(request);
    const body = (request.body ?? {}) as Body;
    const returnUrl = await entryReturnOf(flow, body.return);
    const fields = registrationFields(flow.row.settings.requiredFields);
    const again = (error: string, invalidField?: string, status = 400) =>
      sendPage(reply, status, registerPage(formPage(flow.row, flow.urls, reply, 'register', returnUrl, flow.look, { error, invalidField, fields, values: { ...body, password: undefined } })));
    // The application's own form (embedded) shows what it likes: nothing is enforced from it, and
    // the completion step asks for what it did not send.
    const form = readProfileForm(embedded ? fields.map((field): FormField => ({ ...field, required: false })) : fields, body);
    if (form.error !== undefined) return again(form.error, form.field);
    try {
      const { member, created } = await registerWithEmail(flow.scope, body.email ?? '', body.password ?? '', form.input, visitOf(request, flow, returnUrl));
      return await finish(request, reply, flow, member, returnUrl, created ? 'registration' : 'login');
    } catch (error) {
      if (error instanceof SignInRefused) {
        return again(error.aboutPassword ? `Choose a password of at least ${minPasswordLength} characters.` : registerRefused);
      }
      // A registration that meets a registered address is a sign-in attempt, throttled as one.
      if (error instanceof AppError && error.extensions.code === 'RATE_LIMITED') return again(tooMany, undefined, 429);
      throw error;
    }
  }

  app.post(`${prefix}/register`, { preHandler: csrfProtection }, (request, reply) => register(request, reply, false));

  // The widget's `data-ae-register-form` posts here from the application's own page, which cannot
  // hold our CSRF token: a whitelisted Origin header (sent by browsers on every cross-site POST) is the check.
  app.post(`${prefix}/register/embedded`, async (request, reply) => {
    const flow = await flowOf(request);
    if (!(await isWhitelisted(db, flow.widgetApp, request.headers.origin))) {
      throw new AppError('DOMAIN_NOT_WHITELISTED', 'The form is not on a whitelisted page.', 'origin');
    }
    return register(request, reply, true);
  });

  // ——— required profile fields ———

  /**
   * The member of the browser's session, with the generation the session was checked under (not
   * the row's, which a reset may have raised since): what `finish` mints under.
   */
  async function signedInMember(request: FastifyRequest, flow: Flow): Promise<MemberRow | undefined> {
    const session = await findSession(db, flow.widgetApp, cookieOf(request, flow));
    return session && checkedUnder(await requireMember(db, flow.row.accountId, session.memberId), session.sessionGeneration);
  }

  function completeForm(reply: FastifyReply, flow: Flow, returnUrl: URL | undefined, fields: FormField[], values: Body, error?: string, invalidField?: string) {
    const page = { applicationName: flow.look.title, look: flow.look, action: flow.urls.complete, csrfToken: reply.generateCsrf(), returnUrl: returnUrl?.toString(), fields, values, error, invalidField };
    return sendPage(reply, error ? 400 : 200, completePage(page));
  }

  app.get(`${prefix}/complete`, async (request, reply) => {
    const flow = await flowOf(request);
    const returnUrl = await returnOf(flow, (request.query as Body).return);
    const member = await signedInMember(request, flow);
    if (!member) return reply.redirect(withQuery(flow.urls.login, { return: returnUrl?.toString() }), 303);
    const fields = completionFields(member, flow.row.settings.requiredFields);
    if (!fields.length) return finish(request, reply, flow, member, returnUrl);
    // A missing country starts at the one the member's registration address was placed in.
    return completeForm(reply, flow, returnUrl, fields, { country: member.country ?? member.geoCountry ?? undefined });
  });

  app.post(`${prefix}/complete`, { preHandler: csrfProtection }, async (request, reply) => {
    const flow = await flowOf(request);
    const body = (request.body ?? {}) as Body;
    const returnUrl = await returnOf(flow, body.return);
    const member = await signedInMember(request, flow);
    if (!member) return reply.redirect(withQuery(flow.urls.login, { return: returnUrl?.toString() }), 303);
    const fields = completionFields(member, flow.row.settings.requiredFields);
    const form = readProfileForm(fields, body);
    if (form.error !== undefined) return completeForm(reply, flow, returnUrl, fields, body, form.error, form.field);
    try {
      const updated = await updateMemberProfile(flow.scope, member.id, form.input);
      return await finish(request, reply, flow, checkedUnder(updated.member, member.sessionGeneration), returnUrl);
    } catch (error) {
      if (error instanceof AppError && error.extensions.code === 'INVALID_PARAMETER') return completeForm(reply, flow, returnUrl, fields, body, error.message);
      throw error;
    }
  });

  // ——— signed in, with nowhere to return to ———

  // Where a flow opened without a return URL ends. No token is issued: no site is there to exchange
  // it. The session is what the application's sites will see (the widget's session endpoint).
  app.get(`${prefix}/signed-in`, async (request, reply) => {
    const flow = await flowOf(request);
    if ((await sessionMemberId(db, flow.widgetApp, cookieOf(request, flow))) === undefined) return reply.redirect(flow.urls.login, 303);
    return sendPage(reply, 200, messagePage('You are signed in', `You are signed in to ${flow.look.title}. You can close this page.`, undefined, flow.look));
  });

  // ——— logout ———

  /**
   * The return page of a logout: `return`, or AE's `return_url` (what WordPress's logout sends, with
   * an `auth_method` that is ignored). Refused before anything changes: a control character cannot go
   * into a Location header, and a page off the whitelist is nowhere to send the fan.
   */
  async function logoutReturn(flow: Flow, fields: Body): Promise<URL | undefined> {
    const [param, back] = fields.return !== undefined ? ['return', fields.return] : ['return_url', fields.return_url];
    // eslint-disable-next-line no-control-regex -- control characters are what it refuses
    if (back !== undefined && /[\u0000-\u001f\u007f]/.test(back)) throw invalidParameter(param, 'a URL without control characters');
    if (back && !(await isWhitelisted(db, flow.widgetApp, back))) throw domainNotWhitelisted('The return URL', param);
    // The parsed URL, as the login's return is (its serialisation is always a valid header value),
    // without the credentials a page's own address may carry (lib/url-credentials.ts).
    return back ? withoutCredentials(new URL(back)) : undefined;
  }

  function signedOut(reply: FastifyReply, flow: Flow, back: URL | undefined) {
    if (back) return reply.redirect(back.toString(), 303);
    return sendPage(reply, 200, messagePage('You are signed out', `You are no longer signed in to ${flow.look.title}.`, undefined, flow.look));
  }

  // The LogoutURL is a link any page can send a fan to (an <img>, a cross-site link): a GET ends
  // nothing. Signed in, it asks, and the form's POST (with its CSRF token) signs out; signed out
  // already, there is nothing to ask and the fan goes straight back.
  app.get(`${prefix}/logout`, async (request, reply) => {
    const flow = await flowOf(request);
    const back = await logoutReturn(flow, request.query as Body);
    if ((await sessionMemberId(db, flow.widgetApp, cookieOf(request, flow))) === undefined) return signedOut(reply, flow, back);
    const page = { applicationName: flow.look.title, look: flow.look, action: flow.urls.logout, csrfToken: reply.generateCsrf(), returnUrl: back?.toString() };
    return sendPage(reply, 200, logoutPage({ ...page, stayUrl: back?.toString() ?? flow.urls.signedIn }));
  });

  app.post(`${prefix}/logout`, { preHandler: csrfProtection }, async (request, reply) => {
    const flow = await flowOf(request);
    const back = await logoutReturn(flow, (request.body ?? {}) as Body);
    const name = sessionCookieName(flow.row.id);
    await endSession(db, flow.widgetApp, request.cookies[name]);
    reply.clearCookie(name, policy.session);
    return signedOut(reply, flow, back);
  });

  registerEmailFlowRoutes(app, deps);

  // ——— social sign-in ———

  const oauthCookiePath = (applicationId: number) => `/framework/flow/${applicationId}/oauth`;

  function networkSettings(flow: Flow, network: string) {
    const configured = flow.row.settings.signInNetworks ?? {};
    const settings = Object.hasOwn(configured, network) ? configured[network] : undefined;
    if (!settings) throw notFound('Sign-in with this network', 'network');
    // Saved settings are checked again at use: the gateway's origin sends fans only to the network's own sign-in page.
    checkAuthorizationEndpoint(network as ExternalNetwork, settings, { anyOrigin: oauthOptions.allowHttp });
    return settings;
  }

  app.get(`${prefix}/oauth/:network`, async (request, reply) => {
    const flow = await flowOf(request);
    const { network } = request.params as { network: string };
    const settings = networkSettings(flow, network);
    const returnUrl = await entryReturnOf(flow, (request.query as Body).return);
    const { url, pending } = await authorizationRequest(settings, oauthOptions, flow.urls.callback(network));
    const saved = JSON.stringify({ network, returnUrl: returnUrl?.toString(), ...pending });
    reply.setCookie(oauthCookieName, deps.identity.cipher.seal(saved), { ...policy.flow, signed: false, path: oauthCookiePath(flow.row.id), maxAge: 600 });
    return reply.redirect(url, 302);
  });

  app.get(`${prefix}/oauth/:network/callback`, async (request, reply) => {
    const flow = await flowOf(request);
    const { network } = request.params as { network: string };
    const settings = networkSettings(flow, network);
    const sealed = request.cookies[oauthCookieName];
    reply.clearCookie(oauthCookieName, { ...policy.flow, signed: false, path: oauthCookiePath(flow.row.id) });
    let saved: PendingAuthorization & { network: string; returnUrl?: string };
    try {
      saved = JSON.parse(deps.identity.cipher.open(sealed ?? '')) as typeof saved;
    } catch {
      return sendPage(reply, 400, messagePage('This sign-in has expired', 'It took too long, or was started in another browser. Go back and try again.', undefined, flow.look));
    }
    if (saved.network !== network) return sendPage(reply, 400, messagePage('This sign-in has expired', 'Go back and try again.', undefined, flow.look));
    const returnUrl = await returnOf(flow, saved.returnUrl);
    const name = displayName(network as Network);
    const query = request.query as Body;
    const failed = () =>
      sendPage(reply, 401, loginPage(formPage(flow.row, flow.urls, reply, 'login', returnUrl, flow.look, { error: `Signing in with ${name} did not work. Try again, or use your email address.` })));
    if (query.error) return failed();
    const callbackUrl = new URL(flow.urls.callback(network));
    callbackUrl.search = new URL(request.url, 'http://callback').search;
    let profile;
    try {
      profile = await completeAuthorization(settings, oauthOptions, callbackUrl, saved);
    } catch (error) {
      request.log.warn({ err: error, network }, 'social sign-in refused by the provider or its answer');
      return failed();
    }
    const session = await findSession(db, flow.widgetApp, cookieOf(request, flow));
    const signedIn = session && { id: session.memberId, sessionGeneration: session.sessionGeneration };
    const { member, created } = await signInWithNetwork(flow.scope, network, profile, signedIn, visitOf(request, flow, returnUrl));
    return finish(request, reply, flow, member, returnUrl, created ? 'registration' : 'login');
  });
}
