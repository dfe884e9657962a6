import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../core/errors.js';
import { admitPasswordReset, checkResetLink, checkVerificationLink, completeEmailVerification, completePasswordReset, LinkRefused, sendPasswordReset } from '../../lifecycle/member-emails.js';
import type { LinkPurpose } from '../../email/email-links.queries.js';
import { minPasswordLength } from '../../identity/passwords.js';
import type { WidgetDependencies } from '../widget.http.js';
import { emailScope } from '../widget.emails.js';
import { hostedPageLook } from '../look.js';
import { optionalReturnUrl, widgetApplication } from '../widget.service.js';
import { flowScope } from '../widget.signin.js';
import { hostedBaseUrl, widgetUrls, withQuery } from '../widget.urls.js';
import { confirmEmailPage, forgotPasswordPage, noticePage, resetPasswordPage } from './email-pages.js';
import { sendPage } from './flow.pages.js';
import { messagePage, type PageLink } from './pages.js';

type Body = Record<string, string | undefined>;

const tooMany = 'Too many emails were asked for. Wait a while, then try again.';
const checkInbox = (email: string) => `If an account uses ${email}, we have sent it a link to choose a new password. It works once, for an hour. Check your spam folder if it does not arrive.`;

/**
 * The hosted pages of the emailed links: asking for a reset ("Forgot your password?"), the page a
 * reset link opens (a new password), and the page a verification link opens (a confirmation). They
 * share the flow's error handler, cookies and CSRF protection (flow.routes.ts). None is a dead end:
 * each links back to sign-in and to the site (when the flow came from one), and a refused link to
 * where a new email is asked for.
 */
export function registerEmailFlowRoutes(app: FastifyInstance, deps: WidgetDependencies) {
  const db = deps.database.db;
  const prefix = '/framework/flow/:applicationId';
  // @fastify/csrf-protection's check as a function of its own (it reads no `this`; its type declares a method).
  const csrfProtection = (request: FastifyRequest, reply: FastifyReply, done: () => void) => app.csrfProtection(request, reply, done);

  async function flowOf(request: FastifyRequest, returnText: string | undefined) {
    const row = await widgetApplication(db, (request.params as { applicationId: string }).applicationId);
    const widgetApp = { accountId: row.accountId, applicationId: row.id };
    // A return URL is optional here (a link opened from an inbox may have none); when given it must be whitelisted.
    const returnUrl = await optionalReturnUrl(db, widgetApp, returnText);
    const baseUrl = hostedBaseUrl(deps.config, request);
    const urls = widgetUrls(baseUrl, row.id);
    const scope = emailScope(flowScope(db, row, deps.identity, request.ip), row, baseUrl, returnUrl);
    return { row, urls, scope, returnUrl, look: await hostedPageLook(db, row) };
  }
  type Flow = Awaited<ReturnType<typeof flowOf>>;

  /** The flow's pages carry the return URL on, when there is one. */
  const back = (flow: Flow) => ({ return: flow.returnUrl?.toString() });
  const signInUrl = (flow: Flow) => withQuery(flow.urls.login, back(flow));

  /** Where a finished page leads: back to the site, or to the sign-in page that returns there. */
  const signInNext = (flow: Flow) => (flow.returnUrl ? { url: signInUrl(flow), label: 'Sign in' } : undefined);

  /** The ways back from any page of the emailed links: to sign in, and to the site when the flow came from one. */
  function waysBack(flow: Flow, signIn = true): PageLink[] {
    return [...(signIn ? [{ url: signInUrl(flow), label: 'Back to sign in' }] : []), ...(flow.returnUrl ? [{ url: flow.returnUrl.toString(), label: 'Back to the site' }] : [])];
  }

  /**
   * Where a new email is asked for: the form that sends a reset link; a verification is sent from
   * the site once signed in (the widget's verify-email/send), so the sign-in page that returns there.
   */
  function newEmail(flow: Flow, purpose: LinkPurpose): PageLink {
    if (purpose === 'reset') return { url: withQuery(flow.urls.forgotPassword, back(flow)), label: 'Ask for a new email' };
    return { url: signInUrl(flow), label: 'Sign in to ask for a new email' };
  }

  function refusedLink(reply: FastifyReply, flow: Flow, error: LinkRefused, purpose: LinkPurpose) {
    const status = error.reason === 'invalid' ? 400 : 410;
    const links = [newEmail(flow, purpose), ...waysBack(flow, purpose === 'reset')];
    return sendPage(reply, status, messagePage(error.reason === 'expired' ? 'This link has expired' : 'This link does not work', error.message, error.extensions.aeCode, flow.look, links));
  }

  // ——— forgot password ———

  /** What each form of these pages carries: the application's look, where it posts, its CSRF token, the return URL and the ways back. */
  const formOf = (reply: FastifyReply, flow: Flow, action: string) => ({
    applicationName: flow.look.title,
    look: flow.look,
    action,
    csrfToken: reply.generateCsrf(),
    returnUrl: flow.returnUrl?.toString(),
    links: waysBack(flow),
  });

  function forgotForm(reply: FastifyReply, flow: Flow, status: number, error?: string, email?: string) {
    return sendPage(reply, status, forgotPasswordPage({ ...formOf(reply, flow, flow.urls.forgotPassword), error, values: { email } }));
  }

  app.get(`${prefix}/forgot-password`, async (request, reply) => {
    const flow = await flowOf(request, (request.query as Body).return);
    return forgotForm(reply, flow, 200);
  });

  app.post(`${prefix}/forgot-password`, { preHandler: csrfProtection }, async (request, reply) => {
    const body = (request.body ?? {}) as Body;
    const flow = await flowOf(request, body.return);
    let recipient: string;
    try {
      recipient = await admitPasswordReset(flow.scope, body.email ?? '');
    } catch (error) {
      if (error instanceof AppError && error.extensions.code === 'RATE_LIMITED') return forgotForm(reply, flow, 429, tooMany, body.email);
      if (error instanceof AppError && error.extensions.code === 'INVALID_PARAMETER') return forgotForm(reply, flow, 400, 'Enter an email address.', body.email);
      throw error;
    }
    // The same page, as fast, whether or not the address is registered: the work is done after it.
    deps.identity.mail.later(() => sendPasswordReset(flow.scope, recipient));
    const links = [{ url: withQuery(flow.urls.forgotPassword, back(flow)), label: 'Nothing came? Ask for a new email' }, ...waysBack(flow)];
    return sendPage(reply, 200, noticePage('Check your email', checkInbox(recipient), undefined, flow.look, links));
  });

  // ——— the reset link ———

  function resetForm(reply: FastifyReply, flow: Flow, token: string, status = 200, error?: string) {
    return sendPage(reply, status, resetPasswordPage({ ...formOf(reply, flow, flow.urls.resetPassword), token, error }));
  }

  app.get(`${prefix}/reset-password`, async (request, reply) => {
    const query = request.query as Body;
    const flow = await flowOf(request, query.return);
    try {
      await checkResetLink(flow.scope, query.token);
    } catch (error) {
      if (error instanceof LinkRefused) return refusedLink(reply, flow, error, 'reset');
      throw error;
    }
    return resetForm(reply, flow, query.token!);
  });

  app.post(`${prefix}/reset-password`, { preHandler: csrfProtection }, async (request, reply) => {
    const body = (request.body ?? {}) as Body;
    const flow = await flowOf(request, body.return);
    try {
      await completePasswordReset(flow.scope, body.token, body.password ?? '');
    } catch (error) {
      if (error instanceof LinkRefused) return refusedLink(reply, flow, error, 'reset');
      if (error instanceof AppError && error.extensions.code === 'INVALID_PARAMETER' && error.extensions.param === 'password') {
        return resetForm(reply, flow, body.token ?? '', 400, `Choose a password of at least ${minPasswordLength} characters.`);
      }
      throw error;
    }
    return sendPage(
      reply,
      200,
      noticePage('Your password is changed', 'Sign in with your new password. You have been signed out everywhere else.', signInNext(flow), flow.look, waysBack(flow, !flow.returnUrl)),
    );
  });

  // ——— the verification link ———

  function confirmForm(reply: FastifyReply, flow: Flow, token: string, email: string) {
    return sendPage(reply, 200, confirmEmailPage({ ...formOf(reply, flow, flow.urls.verifyEmail), token, email }));
  }

  // Opening the link changes nothing: it shows a button that confirms. A mail scanner that opens
  // links acts on nothing, and the POST needs the page's CSRF token.
  app.get(`${prefix}/verify-email`, async (request, reply) => {
    const query = request.query as Body;
    const flow = await flowOf(request, query.return);
    let email: string;
    try {
      email = (await checkVerificationLink(flow.scope, query.token)).link.email;
    } catch (error) {
      if (error instanceof LinkRefused) return refusedLink(reply, flow, error, 'verify');
      throw error;
    }
    return confirmForm(reply, flow, query.token!, email);
  });

  app.post(`${prefix}/verify-email`, { preHandler: csrfProtection }, async (request, reply) => {
    const body = (request.body ?? {}) as Body;
    const flow = await flowOf(request, body.return);
    try {
      await completeEmailVerification(flow.scope, body.token);
    } catch (error) {
      if (error instanceof LinkRefused) return refusedLink(reply, flow, error, 'verify');
      // Another member holds the address: the fan signs in to that account (a merge needs its own credential).
      if (error instanceof AppError && error.extensions.code === 'EMAIL_IN_USE') {
        const message = 'Another account already uses this address, so it was not confirmed for this one. Sign in to that account instead.';
        const links = [{ url: signInUrl(flow), label: 'Sign in' }, ...waysBack(flow, false)];
        return sendPage(reply, 409, messagePage('This address already belongs to an account', message, error.extensions.aeCode, flow.look, links));
      }
      throw error;
    }
    if (flow.returnUrl) return reply.redirect(withQuery(flow.returnUrl.toString(), { email_verified: '1' }), 303);
    return sendPage(reply, 200, noticePage('Your email address is confirmed', `Thank you: ${flow.look.title} knows your address is yours.`, undefined, flow.look, waysBack(flow)));
  });
}
