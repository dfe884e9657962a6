import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { DatabaseHandle } from '../../db/client.js';
import { runCounted } from '../../db/roundtrips.js';
import { AppError } from '../../core/errors.js';
import { admitPasswordReset, sendPasswordReset, sendVerificationEmail } from '../lifecycle/member-emails.js';
import { rateLimitExceeded, rateLimitHeaders, type RateLimiter } from '../../lib/rate-limit.js';
import type { IdentityServices } from '../members/identity-services.js';
import { cookiePolicy, cookieSecret, sessionCookieName } from './widget.cookies.js';
import { registerFlowRoutes } from './flow/flow.routes.js';
import { widgetScript } from './widget.script.js';
import { domainNotWhitelisted, endSession, findSession, isWhitelisted, optionalReturnUrl, widgetApplication } from './widget.service.js';
import { emailScope } from './widget.emails.js';
import { flowScope } from './widget.signin.js';
import { allowOrigin, pageOrigin } from './widget.origin.js';
import { registerOnPageRoutes } from './widget.onpage.js';
import { widgetUser } from './widget.user.js';
import { hostedBaseUrl, widgetUrls } from './widget.urls.js';

export interface WidgetDependencies {
  config: Config;
  database: DatabaseHandle;
  identity: IdentityServices;
  /** The gateway's call budget: the widget's routes take no key, so each address spends its own. */
  limiter: RateLimiter;
}

/**
 * The sign-in widget: its script, the session endpoints it calls from the application's pages, and
 * the hosted flow. None of these take an API key: the application is named in the path, and
 * whitelisted domains are what guard them.
 */
export async function registerWidget(root: FastifyInstance, deps: WidgetDependencies): Promise<void> {
  if (deps.config.env === 'production' && !deps.config.publicUrl && !deps.config.allowedHosts) {
    root.log.warn('Neither PUBLIC_URL nor ALLOWED_HOSTS is set: the hosted sign-in pages and the widget script refuse every host (code 4)');
  }
  await root.register(async (app) => {
    // Rate limited as /v1.1 is for callers without a key: per address, with the same headers.
    app.addHook('onRequest', async (request, reply) => {
      const decision = await deps.limiter.consume(deps.limiter.addressBudget(request.ip));
      reply.headers(rateLimitHeaders(decision));
      if (!decision.allowed) throw rateLimitExceeded(decision);
    });
    const policy = cookiePolicy(deps.config);
    await app.register(cookie, { secret: cookieSecret(deps.config.secretKey!) });
    await app.register(csrf, {
      cookieKey: 'mq_csrf',
      cookieOpts: { ...policy.flow, path: '/framework/flow' },
      getToken: (request) => (request.body as Record<string, string> | undefined)?._csrf,
    });
    const db = deps.database.db;
    // Credentialed CORS grants only https pages on the default port in production (widget.origin.ts).
    const httpsOnly = deps.config.env === 'production';
    const applicationOf = async (request: FastifyRequest) => {
      const row = await widgetApplication(db, (request.params as { applicationId: string }).applicationId);
      return { row, app: { accountId: row.accountId, applicationId: row.id } };
    };

    app.get('/framework/js/:applicationId', { config: { kind: 'rest' } }, (request, reply) =>
      runCounted(request.roundTrips, async () => {
        const { row, app: widgetApp } = await applicationOf(request);
        reply.header('vary', 'Origin, Referer');
        if (!(await isWhitelisted(db, widgetApp, pageOrigin(request)))) throw domainNotWhitelisted('The page loading the widget', 'origin');
        // Short and private: the answer depends on the page asking, and a changed whitelist should bite soon.
        reply.type('text/javascript; charset=utf-8').header('cache-control', 'private, max-age=300').header('x-content-type-options', 'nosniff');
        // `Widget.URL?segment=<id>`: the page's opt-ins go to that segment (checked when used).
        const segment = (request.query as { segment?: unknown }).segment;
        return widgetScript(row.id, widgetUrls(hostedBaseUrl(deps.config, request), row.id), typeof segment === 'string' && /^\d{1,18}$/.test(segment) ? segment : undefined);
      }),
    );

    app.get('/framework/session/:applicationId', { config: { kind: 'rest' } }, (request, reply) =>
      runCounted(request.roundTrips, async () => {
        const { app: widgetApp } = await applicationOf(request);
        await allowOrigin(db, widgetApp, request, reply, httpsOnly);
        const session = await findSession(db, widgetApp, request.cookies[sessionCookieName(widgetApp.applicationId)]);
        if (!session) return { user: null };
        return { user: await widgetUser(db, widgetApp, session.memberId), beganWith: session.beganWith };
      }),
    );

    // A simple (preflight-free) POST from the page; the whitelisted Origin is what lets it through.
    app.post('/framework/session/:applicationId/logout', { config: { kind: 'rest' } }, (request, reply) =>
      runCounted(request.roundTrips, async () => {
        const { app: widgetApp } = await applicationOf(request);
        await allowOrigin(db, widgetApp, request, reply, httpsOnly);
        const name = sessionCookieName(widgetApp.applicationId);
        await endSession(db, widgetApp, request.cookies[name]);
        reply.clearCookie(name, policy.session);
        return { user: null };
      }),
    );

    // ——— emails, asked for by the page's script (docs/widget.md, "Emails") ———
    // Simple (preflight-free) form posts like the logout; the whitelisted Origin lets them through.

    const emailScopeOf = async (request: FastifyRequest, reply: FastifyReply) => {
      const { row, app: widgetApp } = await applicationOf(request);
      await allowOrigin(db, widgetApp, request, reply, httpsOnly);
      const body = (request.body ?? {}) as Record<string, string | undefined>;
      const returnUrl = await optionalReturnUrl(db, widgetApp, body.return ?? body.return_url);
      const scope = emailScope(flowScope(db, row, deps.identity, request.ip), row, hostedBaseUrl(deps.config, request), returnUrl);
      return { row, widgetApp, body, scope };
    };

    // The same answer whether or not a member has the address: the lookup and the email happen after it.
    app.post('/framework/:applicationId/reset-password', { config: { kind: 'rest' } }, (request, reply) =>
      runCounted(request.roundTrips, async () => {
        const { body, scope } = await emailScopeOf(request, reply);
        const recipient = await admitPasswordReset(scope, body.email ?? '');
        deps.identity.mail.later(() => sendPasswordReset(scope, recipient));
        return { sent: true };
      }),
    );

    app.post('/framework/:applicationId/verify-email/send', { config: { kind: 'rest' } }, (request, reply) =>
      runCounted(request.roundTrips, async () => {
        const { row, widgetApp, scope } = await emailScopeOf(request, reply);
        const session = await findSession(db, widgetApp, request.cookies[sessionCookieName(row.id)]);
        if (!session) throw new AppError('INVALID_TOKEN', 'No fan is signed in to this application in this browser.', 'session');
        return { sent: true, EmailAddress: await sendVerificationEmail(scope, session.memberId) };
      }),
    );

    registerOnPageRoutes(app, deps, policy);
    await app.register(async (flow) => registerFlowRoutes(flow, deps, policy));
  });
}
