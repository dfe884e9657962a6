import cookie from '@fastify/cookie';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { ApolloServer } from '@apollo/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { runCounted } from '../db/roundtrips.js';
import type { AuditOrigin } from '../modules/audit/audit.js';
import type { IdentityServices } from '../modules/members/identity-services.js';
import { staffOrigin } from '../modules/staff/staff.service.js';
import { endSession, liveSession, type LiveStaffSession } from '../modules/staff/staff.sessions.js';
import { acceptInvite, signIn, type RequestOrigin, type SignedIn } from '../modules/staff/staff.signin.js';
import { baseUrlOf } from '../modules/widget/widget.urls.js';
import { createConsoleApollo } from './apollo.js';
import type { ConsoleContext, StaffCaller } from './context.js';
import { consoleCookie } from './cookies.js';
import { assertConsoleWrite } from './csrf.js';
import { getConsoleSchema } from './schema.js';
import { viewerOf } from './staff.resolver.js';
import { registerFanExports } from './fans/exports.http.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The console session the request's cookie names, when live (console routes only). */
    staffSession?: LiveStaffSession;
  }
}

export interface ConsoleDependencies {
  config: Config;
  database: DatabaseHandle;
  identity: IdentityServices;
}

export interface ConsoleServer {
  /** Stops the console's Apollo Server (after the public one has drained Fastify). */
  stop(): Promise<void>;
}

/**
 * The console's server side under `/console` (docs/console.md): signing in and out, one-time
 * sign-in links, and `/console/graphql`. Its own encapsulated plugin, with @fastify/cookie: the
 * rest of the gateway reads no cookie. Every route is a POST checked against cross-site use
 * (console/csrf.ts); none takes an API key, none is metered as an API hit, and every answer is
 * `Cache-Control: no-store`.
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
      assertConsoleWrite(request, config);
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
          audit: auditOriginOf(request, caller),
          clientAddress: request.ip,
          baseUrl: baseUrlOf(config, request),
        };
      },
    });
    app.post('/console/graphql', { config: { kind: 'graphql' } }, function (request, reply) {
      return runCounted(request.roundTrips, () => graphqlHandler.call(this, request as never, reply as never));
    });

    registerFanExports(app, {
      database,
      identity,
      callerOf: (request) => request.staffSession && callerOf(request.staffSession),
      originOf: (request, caller) => auditOriginOf(request, caller),
    });
  });

  return { stop: () => apollo.stop() };
}

function callerOf(session: LiveStaffSession): StaffCaller {
  return { kind: 'staff', ...session };
}

function auditOriginOf(request: FastifyRequest, caller: StaffCaller | undefined): AuditOrigin {
  const origin = { ip: request.ip, userAgent: userAgentOf(request), requestId: request.id };
  return caller ? staffOrigin(caller, origin) : { actor: { type: 'system', label: 'console (signed out)' }, ...origin };
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

function userAgentOf(request: FastifyRequest): string | undefined {
  const agent = request.headers['user-agent'];
  return typeof agent === 'string' ? agent.slice(0, 512) : undefined;
}
