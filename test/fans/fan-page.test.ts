import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, emailOutbox, members, memberServices, optins, widgetSessions } from '../../src/db/schema/index.js';
import { listAuditEvents, type AuditOrigin } from '../../src/modules/audit/audit.js';
import { createIdentityServices, type IdentityServices } from '../../src/modules/members/identity-services.js';
import { endFanSessions, mergeFans, mergePreview, sendFanPasswordReset, updateFan, type FanScope } from '../../src/modules/fans/fan-actions.js';
import { emailsOfFan, fanId, fanStanding, fanTimeline, optInsOfFan, requireFan, servicesOfFan, widgetSessionsOfFan } from '../../src/modules/fans/fan-page.js';
import { createActivity, insertBrand, record } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok } from '../support/rest.js';

/**
 * The fan page's reads and the console's changes to a fan, on the services: what each reads and
 * writes, its audit entry written with it, bad input and another account's ids refused with
 * nothing written.
 */

let t: TestGateway;
let app: Tenant;
let other: Tenant;
let identity: IdentityServices;
let scope: FanScope;
const origin: AuditOrigin = { actor: { type: 'staff', id: 41, label: 'support@label.example' }, ip: '198.51.100.7', requestId: 'req-fans' };

let counter = 0;
async function register(tenant: Tenant, extra: Record<string, string> = {}) {
  const email = `fan${++counter}-${Date.now()}@example.com`;
  const data = (await ok(t.rest(tenant, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', firstname: 'Fan', ...extra })))[0].data;
  return { id: data.ID as number, email };
}

async function auditOf(accountId: number, targetId: number) {
  return (await listAuditEvents(t.database.db, accountId, { targetType: 'fan', targetId: String(targetId) }, { first: 50 })).events;
}

async function refusal(promise: Promise<unknown>) {
  return promise.then(
    () => undefined,
    (error: { extensions?: { code: string; param: string }; message: string }) => ({ ...error.extensions, message: error.message }),
  );
}

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('enterprise');
  other = await t.tenant('enterprise');
  identity = await createIdentityServices(t.database.db, t.config);
  scope = { db: t.database.db, accountId: app.accountId, identity, origin };
});
afterAll(async () => {
  await identity?.close();
  await t?.close();
});

describe('the fan page', () => {
  it('reads the profile, services without tokens, opt-ins with their dates, standing and a paged timeline', async () => {
    const fan = await register(app, { surname: 'Page' });
    const brand = await insertBrand(t, app, 'Page Brand');
    await ok(t.rest(app, 'POST', `/brand/${brand}/optin`, { id: fan.id }));
    const activity = await createActivity(t, app, { brandid: brand, name: 'Listened', type: 'Listened', points: 3 });
    const now = Date.now();
    await record(
      t,
      app,
      Array.from({ length: 7 }, (_, i) => ({ activityId: activity, memberId: fan.id, completedAt: new Date(now - (i + 1) * 60_000).toISOString(), brandId: brand })),
    );
    const member = await requireFan(t.database.db, app.accountId, fan.id);
    expect(member).toMatchObject({ id: fan.id, email: fan.email, surname: 'Page' });

    const services = await servicesOfFan(t.database.db, app.accountId, fan.id);
    expect(services).toHaveLength(1);
    expect(services[0]).toMatchObject({ network: 'email', uid: fan.email });
    for (const secret of ['passwordHash', 'tokenSealed', 'tokenSecretSealed']) expect(services[0]).not.toHaveProperty(secret);

    const optIns = await optInsOfFan(t.database.db, app.accountId, fan.id);
    expect(optIns).toEqual([expect.objectContaining({ kind: 'brand', brandId: brand, brandName: 'Page Brand', optedOutAt: null, optedInAt: expect.any(Date) })]);

    const standing = await fanStanding(t.database.db, app.accountId, fan.id);
    expect(standing).toMatchObject({ points: 21, activityCount: 7, position: '1' });

    const first = await fanTimeline(t.database.db, app.accountId, fan.id, { first: 3 });
    expect(first.records).toHaveLength(3);
    expect(first.hasNextPage).toBe(true);
    const rest = await fanTimeline(t.database.db, app.accountId, fan.id, { first: 10, after: first.endCursor });
    expect(rest.hasNextPage).toBe(false);
    const times = [...first.records, ...rest.records].map((row) => row.completedAt.getTime());
    expect(times).toHaveLength(7);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(first.records[0]).toMatchObject({ activityName: 'Listened', points: 3 });
  });

  it('refuses bad ids, pages and cursors, and finds nothing of another account', async () => {
    expect(() => fanId('abc')).toThrow(/fan id/);
    expect(() => fanId('0')).toThrow(/fan id/);
    const theirs = await register(other);
    expect(await refusal(requireFan(t.database.db, app.accountId, theirs.id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await servicesOfFan(t.database.db, app.accountId, theirs.id)).toEqual([]);
    expect(await refusal(fanTimeline(t.database.db, app.accountId, theirs.id, { first: 101 }))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'first' });
    expect(await refusal(fanTimeline(t.database.db, app.accountId, theirs.id, { after: 'nope' }))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'after' });
  });
});

describe('changes to a fan', () => {
  it('edits the profile and records the names of the fields changed, not their values', async () => {
    const fan = await register(app);
    const edited = await updateFan(scope, fan.id, { firstName: 'Ada', city: 'London', surname: undefined, extended: { tier: 'gold' } });
    expect(edited).toMatchObject({ firstName: 'Ada', city: 'London' });
    const [entry] = await auditOf(app.accountId, fan.id);
    expect(entry).toMatchObject({ action: 'fan.edit', actorType: 'staff', actorId: 41, ip: '198.51.100.7', requestId: 'req-fans', details: { fields: ['city', 'extended.tier', 'firstName'] } });
    expect(JSON.stringify(entry.details)).not.toContain('London');
  });

  it('refuses a bad edit, writing nothing, not even an entry', async () => {
    const fan = await register(app);
    expect(await refusal(updateFan(scope, fan.id, { country: 'Narnia' }))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'country' });
    expect(await refusal(updateFan(scope, fan.id, { firstName: 'x'.repeat(501) }))).toMatchObject({ code: 'INVALID_PARAMETER' });
    expect((await requireFan(t.database.db, app.accountId, fan.id)).country).toBeNull();
    expect(await auditOf(app.accountId, fan.id)).toEqual([]);
  });

  it("leaves another account's fan alone: not found, nothing written", async () => {
    const theirs = await register(other);
    const [before] = await t.database.db.select().from(members).where(eq(members.id, theirs.id));
    expect(await refusal(updateFan(scope, theirs.id, { firstName: 'Mallory' }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refusal(endFanSessions(scope, theirs.id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refusal(sendFanPasswordReset(scope, theirs.id, 'http://localhost'))).toMatchObject({ code: 'NOT_FOUND' });
    const mine = await register(app);
    expect(await refusal(mergePreview(t.database.db, app.accountId, mine.id, theirs.id))).toMatchObject({ code: 'NOT_FOUND', param: 'otherId' });
    expect(await refusal(mergeFans(scope, mine.id, theirs.id))).toMatchObject({ code: 'NOT_FOUND', param: 'otherId' });
    const [after] = await t.database.db.select().from(members).where(eq(members.id, theirs.id));
    expect(after).toEqual(before);
    const entries = await t.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.targetId, String(theirs.id)));
    expect(entries).toEqual([]);
  });

  it('ends every session: the generation rises, live sessions stop, an entry is written', async () => {
    const fan = await register(app);
    const before = await requireFan(t.database.db, app.accountId, fan.id);
    await t.database.db.insert(widgetSessions).values({
      accountId: app.accountId,
      applicationId: app.applicationId,
      memberId: fan.id,
      sessionHash: `hash-${fan.id}`,
      sessionGeneration: before.sessionGeneration,
      expiresAt: new Date(Date.now() + 3600_000),
    });
    expect((await widgetSessionsOfFan(t.database.db, app.accountId, fan.id, before.sessionGeneration))[0].live).toBe(true);
    const after = await endFanSessions(scope, fan.id);
    expect(after.sessionGeneration).toBe(before.sessionGeneration + 1);
    expect(after.accessTokenHash).not.toBe(before.accessTokenHash);
    expect((await widgetSessionsOfFan(t.database.db, app.accountId, fan.id, after.sessionGeneration))[0].live).toBe(false);
    expect((await auditOf(app.accountId, fan.id)).map((entry) => entry.action)).toEqual(['fan.sessions_end']);
  });

  it('sends a reset email to the address the fan signs in with, listed among the emails sent, with an entry', async () => {
    const fan = await register(app);
    await sendFanPasswordReset(scope, fan.id, 'http://localhost:3000');
    const emails = await emailsOfFan(t.database.db, app.accountId, fan.id);
    expect(emails).toEqual([expect.objectContaining({ kind: 'reset-password', recipient: fan.email })]);
    expect(emails[0]).not.toHaveProperty('body');
    expect((await auditOf(app.accountId, fan.id)).map((entry) => entry.action)).toEqual(['fan.reset_sent']);
  });

  it('refuses a reset for a fan without a password', async () => {
    const [row] = await t.database.db
      .insert(members)
      .values({ accountId: app.accountId, email: 'network-only@example.com', accessTokenHash: `x-${Date.now()}`, accessTokenSealed: 'x' })
      .returning();
    await t.database.db.insert(memberServices).values({ accountId: app.accountId, memberId: row.id, network: 'spotify', uid: `sp-${row.id}` });
    expect(await refusal(sendFanPasswordReset(scope, row.id, 'http://localhost:3000'))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'id' });
    const outbox = await t.database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.accountId, app.accountId), eq(emailOutbox.memberId, row.id)));
    expect(outbox).toEqual([]);
    expect(await auditOf(app.accountId, row.id)).toEqual([]);
  });

  it('previews a merge without changing anything, then merges as it said', async () => {
    const keep = await register(app, { surname: 'Keeper' });
    const gone = await register(app, { surname: 'Other', city: 'Paris' });
    const brand = await insertBrand(t, app, 'Merge Brand');
    await ok(t.rest(app, 'POST', `/brand/${brand}/optin`, { id: keep.id }));
    await ok(t.rest(app, 'POST', `/brand/${brand}/optin`, { id: gone.id }));
    const activity = await createActivity(t, app, { brandid: brand, name: 'Watched', type: 'Watched', points: 2 });
    await record(t, app, [
      { activityId: activity, memberId: gone.id, completedAt: new Date(Date.now() - 60_000).toISOString(), brandId: brand },
      { activityId: activity, memberId: gone.id, completedAt: new Date(Date.now() - 120_000).toISOString(), brandId: brand },
    ]);
    const preview = await mergePreview(t.database.db, app.accountId, keep.id, gone.id);
    expect(preview.keep.id).toBe(keep.id);
    expect(preview.moves).toEqual({ services: 1, optIns: 1, records: 2 });
    expect(preview.optInsClosed).toBe(1);
    expect(preview.networkConflicts).toEqual(['email']);
    expect(preview.fields.find((field) => field.field === 'surname')).toEqual({ field: 'surname', keep: 'Keeper', other: 'Other', result: 'Keeper', conflict: true });
    expect(preview.fields.find((field) => field.field === 'city')).toEqual({ field: 'city', keep: null, other: 'Paris', result: 'Paris', conflict: false });
    // Read only.
    expect((await requireFan(t.database.db, app.accountId, gone.id)).id).toBe(gone.id);

    const survivor = await mergeFans(scope, keep.id, gone.id);
    expect(survivor).toMatchObject({ id: keep.id, surname: 'Keeper', city: 'Paris' });
    expect((await requireFan(t.database.db, app.accountId, gone.id)).id).toBe(keep.id);
    expect(await servicesOfFan(t.database.db, app.accountId, keep.id)).toHaveLength(2);
    expect((await fanTimeline(t.database.db, app.accountId, keep.id)).records).toHaveLength(2);
    const current = await t.database.db
      .select()
      .from(optins)
      .where(and(eq(optins.accountId, app.accountId), eq(optins.memberId, keep.id)));
    expect(current.filter((row) => row.optedOutAt === null)).toHaveLength(1);
    const [entry] = await auditOf(app.accountId, keep.id);
    expect(entry).toMatchObject({ action: 'fan.merge', details: { from: gone.id, into: keep.id } });
  });

  it('refuses merging a fan with itself or twice, writing nothing', async () => {
    const a = await register(app);
    const b = await register(app);
    expect(await refusal(mergePreview(t.database.db, app.accountId, a.id, a.id))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'otherId' });
    expect(await refusal(mergeFans(scope, a.id, a.id))).toMatchObject({ code: 'INVALID_PARAMETER', param: 'otherId' });
    await mergeFans(scope, a.id, b.id);
    expect(await refusal(mergeFans(scope, a.id, b.id))).toMatchObject({ code: 'CONFLICT' });
    expect((await auditOf(app.accountId, a.id)).map((entry) => entry.action)).toEqual(['fan.merge']);
  });
});
