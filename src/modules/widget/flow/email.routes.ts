import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../core/errors.js';
import { admitPasswordReset, checkResetLink, completeEmailVerification, completePasswordReset, LinkRefused, sendPasswordReset } from '../../lifecycle/member-emails.js';
import { minPasswordLength } from '../../identity/passwords.js';
import type { WidgetDependencies } from '../widget.http.js';
import { emailScope } from '../widget.emails.js';
import { hostedPageLook } from '../look.js';
import { optionalReturnUrl, widgetApplication } from '../widget.service.js';
import { flowScope } from '../widget.signin.js';
import { hostedBaseUrl, widgetUrls, withQuery } from '../widget.urls.js';
import { forgotPasswordPage, noticePage, resetPasswordPage } from './email-pages.js';
import { sendPage } from './flow.pages.js';
import { messagePage } from './pages.js';

type Body = Record<string, string | undefined>;

const tooMany = 'Too many emails were asked for. Wait a while, then try again.';
const checkInbox = (email: string) => `If an account uses ${email}, we have sent it a link to choose a new password. It works once, for an hour. Check your spam folder if it does not arrive.`;

/**
 * The hosted pages of the emailed links: asking for a reset ("Forgot your password?"), the page a
 * reset link opens (a new password), and the page a verification link opens. They share the flow's
 * error handler, cookies and CSRF protection (flow.routes.ts).
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

  /** Where a finished page leads: back to the site, or to the sign-in page that returns there. */
  const signInNext = (flow: Flow) => (flow.returnUrl ? { url: withQuery(flow.urls.login, { return: flow.returnUrl.toString() }), label: 'Sign in' } : undefined);

  function refusedLink(reply: FastifyReply, flow: Flow, error: LinkRefused) {
    const status = error.reason === 'invalid' ? 400 : 410;
    return sendPage(reply, status, messagePage(error.reason === 'expired' ? 'This link has expired' : 'This link does not work', error.message, error.extensions.aeCode, flow.look));
  }

  // ——— forgot password ———

  function forgotForm(reply: FastifyReply, flow: Flow, status: number, error?: string, email?: string) {
    const page = { applicationName: flow.look.title, look: flow.look, action: flow.urls.forgotPassword, csrfToken: reply.generateCsrf(), returnUrl: flow.returnUrl?.toString(), error, values: { email } };
    return sendPage(reply, status, forgotPasswordPage(page));
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
    return sendPage(reply, 200, noticePage('Check your email', checkInbox(recipient), undefined, flow.look));
  });

  // ——— the reset link ———

  function resetForm(reply: FastifyReply, flow: Flow, token: string, status = 200, error?: string) {
    const page = { applicationName: flow.look.title, look: flow.look, action: flow.urls.resetPassword, csrfToken: reply.generateCsrf(), returnUrl: flow.returnUrl?.toString(), token, error };
    return sendPage(reply, status, resetPasswordPage(page));
  }

  app.get(`${prefix}/reset-password`, async (request, reply) => {
    const query = request.query as Body;
    const flow = await flowOf(request, query.return);
    try {
      await checkResetLink(flow.scope, query.token);
    } catch (error) {
      if (error instanceof LinkRefused) return refusedLink(reply, flow, error);
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
      if (error instanceof LinkRefused) return refusedLink(reply, flow, error);
      if (error instanceof AppError && error.extensions.code === 'INVALID_PARAMETER' && error.extensions.param === 'password') {
        return resetForm(reply, flow, body.token ?? '', 400, `Choose a password of at least ${minPasswordLength} characters.`);
      }
      throw error;
    }
    return sendPage(reply, 200, noticePage('Your password is changed', 'Sign in with your new password. You have been signed out everywhere else.', signInNext(flow), flow.look));
  });

  // ——— the verification link ———

  // Opening the link is the confirmation: it proves the inbox is the member's, and changes nothing
  // else, so a mail scanner opening it first does no harm (a reset link, which sets a password, waits for a POST).
  app.get(`${prefix}/verify-email`, async (request, reply) => {
    const query = request.query as Body;
    const flow = await flowOf(request, query.return);
    try {
      await completeEmailVerification(flow.scope, query.token);
    } catch (error) {
      if (error instanceof LinkRefused) return refusedLink(reply, flow, error);
      throw error;
    }
    if (flow.returnUrl) return reply.redirect(withQuery(flow.returnUrl.toString(), { email_verified: '1' }), 303);
    return sendPage(reply, 200, noticePage('Your email address is confirmed', `Thank you: ${flow.look.title} knows your address is yours.`, undefined, flow.look));
  });
}
