import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireStaff } from '../../src/console/route-kit.js';
import { consoleRoutes } from '../../src/console/routes.js';
import { auditEvents } from '../../src/db/schema/index.js';
import { signInStaff } from '../support/console.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * A plain console route as a module adds one (console/routes.ts): inside the console's plugin, it
 * checks its staff member as a GraphQL field is checked, and writes are held to the CSRF rules.
 */
let t: TestGateway;
let tenant: Tenant;

const probe = async (app: Parameters<(typeof consoleRoutes)[number]>[0], deps: Parameters<(typeof consoleRoutes)[number]>[1]) => {
  app.get('/console/test-probe', { config: { kind: 'rest' } }, async (request) => {
    const caller = await requireStaff(request, deps.database, 'fans.export');
    return { staffId: caller.staffId, role: caller.role };
  });
  app.post('/console/test-probe', { config: { kind: 'rest' } }, async (request) => ({ staffId: (await requireStaff(request, deps.database)).staffId }));
};

beforeAll(async () => {
  consoleRoutes.push(probe);
  t = await startTestGateway();
  tenant = await t.tenant();
});
afterAll(async () => {
  consoleRoutes.splice(consoleRoutes.indexOf(probe), 1);
  await t?.close();
});

describe('a console route', () => {
  it('answers the staff member whose role holds the permission; a GET needs no CSRF header', async () => {
    const admin = await signInStaff(t, { accountId: tenant.accountId, role: 'admin' });
    const response = await t.request({ method: 'GET', url: '/console/test-probe', headers: { cookie: admin.cookie } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ staffId: admin.staffId, role: 'admin' });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('refuses no session (401) and a role without the permission (403, audited)', async () => {
    const none = await t.request({ method: 'GET', url: '/console/test-probe' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error).toMatchObject({ code: 21, type: 'STAFF_SESSION_REQUIRED' });

    const support = await signInStaff(t, { accountId: tenant.accountId, role: 'support' });
    const refused = await t.request({ method: 'GET', url: '/console/test-probe', headers: { cookie: support.cookie } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ code: 22, type: 'FORBIDDEN', message: 'Your role (support) does not allow this: it needs the fans.export permission.' });
    const [denied] = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.accountId, tenant.accountId), eq(auditEvents.action, 'permission.denied')));
    expect(denied).toMatchObject({ actorId: support.staffId, outcome: 'denied', details: { permission: 'fans.export', field: 'GET /console/test-probe', role: 'support' } });
  });

  it('holds a write to the CSRF rules', async () => {
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    const bare = await t.request({ method: 'POST', url: '/console/test-probe', headers: { cookie: owner.cookie } });
    expect(bare.statusCode).toBe(403);
    expect(bare.json().error).toMatchObject({ type: 'FORBIDDEN', param: 'x-console-csrf' });
    const proper = await t.request({ method: 'POST', url: '/console/test-probe', headers: { cookie: owner.cookie, ...owner.csrfHeaders }, payload: {} });
    expect(proper.json()).toEqual({ staffId: owner.staffId });
  });

  it('takes no API key in place of a session, and meters nothing', async () => {
    const hits = t.gateway.meter.pendingHits;
    const owner = await signInStaff(t, { accountId: tenant.accountId, role: 'owner' });
    await t.request({ method: 'POST', url: '/console/graphql', headers: { cookie: owner.cookie, ...owner.csrfHeaders }, payload: { query: '{ staff { id } }' } });
    const response = await t.request({ method: 'GET', url: '/console/test-probe', headers: { 'x-api-key': tenant.apiKey } });
    expect(response.statusCode).toBe(401);
    const graphql = await t.request({
      method: 'POST',
      url: '/console/graphql',
      headers: { 'x-api-key': tenant.apiKey, 'x-console-csrf': '1', 'content-type': 'application/json' },
      payload: { query: '{ viewer { id } }' },
    });
    expect(graphql.json()).toEqual({ data: { viewer: null } });
    expect(t.gateway.meter.pendingHits).toBe(hits);
  });
});
