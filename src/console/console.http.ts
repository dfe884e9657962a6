import cookie from '@fastify/cookie';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { ApolloServer } from '@apollo/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { runCounted } from '../db/roundtrips.js';
import { endSession, liveSession } from '../modules/staff/staff.sessions.js';
import { acceptInvite, signIn, type RequestOrigin, type SignedIn } from '../modules/staff/staff.signin.js';
import { baseUrlOf } from '../modules/widget/widget.urls.js';
import { createConsoleApollo } from './apollo.js';
import type { ConsoleContext, StaffCaller } from './context.js';
import { consoleCookie } from './cookies.js';
import { assertConsoleWrite } from './csrf.js';
import { callerOf, consoleAuditOrigin, userAgentOf, type ConsoleDependencies } from './route-kit.js';
import { consoleRoutes } from './routes.js';
import { getConsoleSchema } from './schema.js';
import { viewerOf } from './staff.resolver.js';

export interface ConsoleServer {
  /** Stops the console's Apollo Server (after the public one has drained Fastify). */
  stop(): Promise<void>;
}

/**
 * The console's server side under `/console` (docs/console.md): signing in and out, one-time
 * sign-in links, `/console/graphql`, and the routes of console/routes.ts. Its own encapsulated
 * plugin, with @fastify/cookie: the rest of the gateway reads no cookie. Every method but GET and
 * HEAD is checked against cross-site use (console/csrf.ts); no route takes an API key or is metered
 * as an API hit, and every answer is `Cache-Control: no-store`.
 */
export async function registerConsole(root: FastifyInstance, deps: ConsoleDependencies): Promise<ConsoleServer> {
  const { config, database, identity } = deps;
  const db = database.db;
  const apollo: ApolloServer<ConsoleContext> = createConsoleApollo(root, await getConsoleSchema(), config);
  await apollo.start();
  const cookieOf = consoleCookie(config);

  await root.register(async (app) => {
    await app.register(cookie);
    app.addHook('onRequest', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      // Reads (a download) change nothing: a cross-site page could only make the browser fetch them
      // without the SameSite=Strict cookie, and cannot read the answer (no CORS).
      if (request.method !== 'GET' && request.method !== 'HEAD') assertConsoleWrite(request, config);
    });
    app.addHook('preHandler', async (request) => {
      request.staffSession = await runCounted(request.roundTrips, () => liveSession(db, request.cookies[cookieOf.name]));
    });

    const originOf = (request: FastifyRequest): RequestOrigin => ({ ip: request.ip, userAgent: userAgentOf(request), requestId: request.id });
    const signedInAnswer = (reply: FastifyReply, signed: SignedIn) => {
      reply.setCookie(cookieOf.name, signed.session.cookieValue, cookieOf.options);
      const caller: StaffCaller = {
        kind: 'staff',
        staffId: signed.staffId,
        email: signed.email,
        accountId: signed.accountId,
        accountName: signed.accountName,
        role: signed.role,
        sessionId: signed.session.sessionId,
        secondFactorEnabled: signed.secondFactorEnabled,
        secondFactorRequired: signed.secondFactorRequired,
        owesSecondFactor: signed.secondFactorSetupRequired,
      };
      return { staff: staffAnswer(caller), secondFactorRequired: signed.secondFactorSetupRequired };
    };

    // Signs in: `{ email, password, code?, accountId? }`. With a second factor and no code, answers
    // `{ staff: null, secondFactorRequired: true }` and sets nothing: send the same with the code.
    app.post('/console/session', { config: { kind: 'rest' } }, (request, reply) =>
      runCounted(request.roundTrips, async () => {
        const body = bodyOf(request);
        const outcome = await signIn(db, identity, { email: body.email, password: body.password, code: body.code, accountId: body.accountId }, originOf(request));
        if ('secondFactorAsked' in outcome) return { staff: null, secondFactorRequired: true };
        // A new session each sign-in: the one the browser held before, if any, ends.
        if (request.staffSession) await endSession(db, request.cookies[cookieOf.name]);
        return signedInAnswer(reply, outcome);
      }),
    );

    app.post('/console/session/end', { config: { kind: 'rest' } }, (request, reply) =>
      runCounted(request.roundTrips, async () => {
        await endSession(db, request.cookies[cookieOf.name]);
        reply.clearCookie(cookieOf.name, { ...cookieOf.options, maxAge: undefined });
        return { staff: null };
      }),
    );

    // A one-time sign-in link used: `{ token, password }` (the token is the link's part after `#`).
    app.post('/console/invite', { config: { kind: 'rest' } }, (request, reply) =>
      runCounted(request.roundTrips, async () => {
        const body = bodyOf(request);
        return signedInAnswer(reply, await acceptInvite(db, { token: body.token, password: body.password }, originOf(request)));
      }),
    );

    const graphqlHandler = fastifyApolloHandler(apollo, {
      context: async (request): Promise<ConsoleContext> => {
        const caller = request.staffSession && callerOf(request.staffSession);
        return {
          requestId: request.id,
          log: request.log,
          database,
          caller,
          identity,
          audit: consoleAuditOrigin(request, caller),
          clientAddress: request.ip,
          baseUrl: baseUrlOf(config, request),
        };
      },
    });
    app.post('/console/graphql', { config: { kind: 'graphql' } }, function (request, reply) {
      return runCounted(request.roundTrips, () => graphqlHandler.call(this, request as never, reply as never));
    });

    for (const routes of consoleRoutes) await routes(app, deps);
  });

  return { stop: () => apollo.stop() };
}

/** The signed-in staff member as the plain routes answer them: the GraphQL `viewer`'s shape. */
function staffAnswer(caller: StaffCaller) {
  const viewer = viewerOf(caller);
  return { ...viewer, id: String(viewer.id), account: { id: String(viewer.account.id), name: viewer.account.name } };
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
