import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members, optins } from '../../src/db/schema/index.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { ok } from '../support/rest.js';
import { executeRows } from '../../src/db/rows.js';

let t: TestGateway;
let app: Tenant;
let stranger: Tenant;
let brand: { ID: number; Name: string };
let list: { ID: string };
let filter: { ID: string };
let strangerSegment: { ID: string };

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  stranger = await t.tenant('advanced');
  brand = (await t.rest(app, 'POST', '/brand/create', { name: 'Opt Brand' })).json;
  list = (await t.rest(app, 'POST', '/segment/create', { name: 'Newsletter', label: 'Weekly news', brandid: brand.ID })).json;
  filter = (await t.rest(app, 'POST', '/segment/create', { name: 'Computed', type: 'filter', filter: '{"countries":["GB"]}' })).json;
  strangerSegment = (await t.rest(stranger, 'POST', '/segment/create', { name: 'Theirs' })).json;
});
afterAll(() => t.close());

let counter = 0;
async function register(tenant = app, extra: Record<string, string | number> = {}) {
  const email = `optin${++counter}-${Date.now()}@example.com`;
  const response = await t.rest(tenant, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', ...extra });
  expect(response.status, response.body).toBe(200);
  return { email, id: response.json[0].data.ID as number, envelope: response.json[0] };
}

async function optInRows(memberId: number) {
  return t.database.db.select().from(optins).where(eq(optins.memberId, memberId)).orderBy(optins.id);
}

describe('opt-in and opt-out', () => {
  it('opts a member into a segment, a brand and the global list, and the envelope lists them', async () => {
    const member = await register();
    const segmentOptIn = await ok(t.rest(app, 'POST', '/optin', { id: member.id, segment: list.ID }));
    expect(segmentOptIn).toEqual({ ID: expect.stringMatching(/^\d+$/), Type: 'Segment', SegmentID: list.ID, Label: 'Weekly news', Name: 'Newsletter' });
    const globalOptIn = await ok(t.rest(app, 'POST', '/optin', { email: member.email.toUpperCase() }));
    expect(globalOptIn).toEqual({ ID: expect.stringMatching(/^\d+$/), Type: 'Global', SegmentID: null, Label: null, Name: null });
    const brandOptIn = await ok(t.rest(app, 'POST', `/brand/${brand.ID}/optin`, { id: member.id }));
    expect(brandOptIn).toEqual({ ID: expect.stringMatching(/^\d+$/), Type: 'Brand', SegmentID: String(brand.ID), Label: null, Name: 'Opt Brand' });

    const shown = await ok(t.rest(app, 'GET', `/member/${member.id}`));
    expect(shown.optins).toEqual([segmentOptIn, globalOptIn, brandOptIn]);
  });

  it('repeating an opt-in while current changes nothing; opting out keeps the row; opting in again starts a new one', async () => {
    const member = await register();
    const first = await ok(t.rest(app, 'POST', '/optin', { id: member.id, segment: list.ID }));
    expect(await ok(t.rest(app, 'POST', '/optin', { id: member.id, segment: list.ID }))).toEqual(first);
    expect(await optInRows(member.id)).toHaveLength(1);

    expect(await ok(t.rest(app, 'POST', '/optout', { id: member.id, segment: list.ID }))).toEqual(first);
    expect((await ok(t.rest(app, 'GET', `/member/${member.id}`))).optins).toEqual([]);
    // Opting out again answers the same, ended opt-in.
    expect(await ok(t.rest(app, 'POST', '/optout', { id: member.id, segment: list.ID }))).toEqual(first);
    const [ended] = await optInRows(member.id);
    expect(ended.optedOutAt).toBeInstanceOf(Date);

    const again = await ok(t.rest(app, 'POST', '/optin', { id: member.id, segment: list.ID }));
    expect(Number(again.ID)).toBeGreaterThan(Number(first.ID));
    const history = await optInRows(member.id);
    expect(history.map((row) => [row.id, row.optedOutAt === null])).toEqual([
      [Number(first.ID), false],
      [Number(again.ID), true],
    ]);

    await ok(t.rest(app, 'POST', `/brand/${brand.ID}/optin`, { id: member.id }));
    await ok(t.rest(app, 'POST', `/brand/${brand.ID}/optout`, { id: member.id }));
    expect((await ok(t.rest(app, 'GET', `/member/${member.id}`))).optins.map((o: { Type: string }) => o.Type)).toEqual(['Segment']);
  });

  it('refuses bad input, other accounts’ members and lists, and writes nothing', async () => {
    const member = await register();
    const other = await register(stranger);
    const cases = [
      ['/optin', {}, 400, 3, 'id'],
      ['/optin', { id: 'abc' }, 400, 4, 'id'],
      ['/optin', { id: 999999 }, 404, 5, 'id'],
      ['/optin', { email: 'nobody@example.com' }, 404, 5, null],
      ['/optin', { id: other.id }, 404, 5, 'id'],
      ['/optin', { id: member.id, segment: 'abc' }, 400, 4, 'segment'],
      ['/optin', { id: member.id, segment: 999999 }, 404, 5, 'segment'],
      ['/optin', { id: member.id, segment: strangerSegment.ID }, 404, 5, 'segment'],
      ['/optin', { id: member.id, segment: filter.ID }, 400, 4, 'segment'],
      ['/optout', { id: member.id, segment: list.ID }, 404, 5, 'segment'],
      [`/brand/${brand.ID}/optin`, {}, 400, 3, 'id'],
      [`/brand/${brand.ID}/optin`, { id: other.id }, 404, 5, 'id'],
      [`/brand/${brand.ID}/optout`, { id: member.id }, 404, 5, 'id'],
      ['/brand/999999/optin', { id: member.id }, 404, 5, 'brandid'],
    ] as const;
    for (const [path, query, status, code, param] of cases) {
      const response = await t.rest(app, 'POST', path, query);
      expect(response.status, `${path} ${JSON.stringify(query)}: ${response.body}`).toBe(status);
      expect(response.json.error.code).toBe(code);
      if (param) expect(response.json.error.param).toBe(param);
    }
    expect(await optInRows(member.id)).toEqual([]);
    expect(await optInRows(other.id)).toEqual([]);
  });

  it('leaves opt-ins to deleted segments and brands out of the envelope, keeping their rows', async () => {
    const member = await register();
    const segment = (await t.rest(app, 'POST', '/segment/create', { name: 'Short-lived' })).json;
    const doomed = (await t.rest(app, 'POST', '/brand/create', { name: 'Doomed' })).json;
    await ok(t.rest(app, 'POST', '/optin', { id: member.id, segment: segment.ID }));
    await ok(t.rest(app, 'POST', `/brand/${doomed.ID}/optin`, { id: member.id }));
    await ok(t.rest(app, 'POST', `/segment/${segment.ID}/delete`));
    await ok(t.rest(app, 'POST', `/brand/${doomed.ID}/delete`));
    expect((await ok(t.rest(app, 'GET', `/member/${member.id}`))).optins).toEqual([]);
    expect(await optInRows(member.id)).toHaveLength(2);
  });
});

describe('opt-in history under concurrency', () => {
  /** Rows of the member's history that end before they begin, or begin before the previous one ended. */
  async function inconsistencies(memberId: number) {
    const rows = await executeRows(
      t.database.db,
      sql`
      select id from (
        select id, opted_in_at, opted_out_at, lag(opted_out_at) over (order by id) as previous_out
        from optins where member_id = ${memberId}
      ) history
      where opted_out_at < opted_in_at or opted_in_at < previous_out`,
    );
    return rows.length;
  }

  it('concurrent opt-ins and opt-outs of one member and list leave a history in order', async () => {
    for (let round = 0; round < 5; round += 1) {
      const member = await register();
      await ok(t.rest(app, 'POST', '/optin', { id: member.id, segment: list.ID }));
      const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => t.rest(app, 'POST', i % 2 ? '/optout' : '/optin', { id: member.id, segment: list.ID })));
      for (const response of responses) expect(response.status, response.body).toBe(200);
      const history = await optInRows(member.id);
      expect(history.filter((row) => row.optedOutAt === null).length).toBeLessThanOrEqual(1);
      // Every row but the latest has ended; none ends before it began, nor begins before the previous one ended.
      expect(history.slice(0, -1).every((row) => row.optedOutAt !== null)).toBe(true);
      for (const row of history) if (row.optedOutAt) expect(row.optedOutAt.getTime()).toBeGreaterThanOrEqual(row.optedInAt.getTime());
      expect(await inconsistencies(member.id), `round ${round}`).toBe(0);
    }
  }, 60_000);

  it('the database refuses an opt-out before its opt-in', async () => {
    const member = await register();
    const current = await ok(t.rest(app, 'POST', '/optin', { id: member.id }));
    const error = await t.database.db
      .update(optins)
      // A time long before the opt-in (not computed from its column: Citus refuses a stable
      // function of a column in an UPDATE, and the check is what is tested here).
      .set({ optedOutAt: new Date('2000-01-01T00:00:00Z') })
      // The account named, as the gateway's statements do: Citus routes the update to its shard.
      .where(and(eq(optins.accountId, app.accountId), eq(optins.id, Number(current.ID))))
      .then(
        () => undefined,
        (failure: unknown) => failure as { code?: string; cause?: { code?: string } },
      );
    expect(error, 'the update was accepted').toBeDefined();
    expect(error!.cause?.code ?? error!.code).toBe('23514');
    const [row] = await optInRows(member.id);
    expect(row.optedOutAt).toBeNull();
  });

  it('an opt-out is stamped by the database clock, never before the opt-in', async () => {
    const member = await register();
    await ok(t.rest(app, 'POST', '/optin', { id: member.id }));
    // An opt-in recorded a little in the future (another server's clock, say) still ends after it began.
    await t.database.db
      .update(optins)
      .set({ optedInAt: sql`now() + interval '5 seconds'` })
      .where(eq(optins.memberId, member.id));
    await ok(t.rest(app, 'POST', '/optout', { id: member.id }));
    const [row] = await optInRows(member.id);
    expect(row.optedOutAt!.getTime()).toBeGreaterThanOrEqual(row.optedInAt.getTime());
    expect(await inconsistencies(member.id)).toBe(0);
  });
});

describe('segmentid at registration', () => {
  it('opts the new member into the segment, and the envelope says so', async () => {
    const { id, envelope } = await register(app, { segmentid: list.ID });
    expect(envelope.optins).toEqual([{ ID: expect.stringMatching(/^\d+$/), Type: 'Segment', SegmentID: list.ID, Label: 'Weekly news', Name: 'Newsletter' }]);
    expect(await optInRows(id)).toHaveLength(1);
  });

  it('refuses an unknown, foreign or filter segment before anything is written', async () => {
    const count = async () =>
      (
        await t.database.db
          .select({ n: sql<number>`count(*)::int` })
          .from(members)
          .where(eq(members.accountId, app.accountId))
      )[0].n;
    const before = await count();
    for (const [segmentid, status, code] of [
      [999999, 404, 5],
      [strangerSegment.ID, 404, 5],
      [filter.ID, 400, 4],
      ['x', 400, 4],
    ] as const) {
      const response = await t.rest(app, 'POST', '/member/register', { service: 'email', email: `refused-${segmentid}@example.com`, password: 'correct horse', segmentid });
      expect(response.status, response.body).toBe(status);
      expect(response.json.error).toMatchObject({ code, param: 'segmentid' });
    }
    expect(await count()).toBe(before);
  });
});

describe('GraphQL', () => {
  it('reads opt-ins of members with their brand and segment, and opts in and out', async () => {
    const member = await register();
    const result = await t.graphql(app.apiKey, `mutation($input: OptInInput!) { optIn(input: $input) { kind name brand { id } segment { id } optedOutAt } }`, {
      input: { memberId: String(member.id), brandId: String(brand.ID) },
    });
    expect(result.body.data.optIn).toEqual({ kind: 'BRAND', name: 'Opt Brand', brand: { id: String(brand.ID) }, segment: null, optedOutAt: null });
    const both = await t.graphql(app.apiKey, `mutation($input: OptInInput!) { optIn(input: $input) { id } }`, {
      input: { memberId: String(member.id), brandId: String(brand.ID), segmentId: list.ID },
    });
    expect(both.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'segmentId' });
    await t.graphql(app.apiKey, `mutation($input: OptInInput!) { optIn(input: $input) { id } }`, { input: { memberId: String(member.id), segmentId: list.ID } });
    const read = await t.graphql(app.apiKey, `query($id: ID!) { member(lookup: { id: $id }) { optins { kind segment { name brand { name } } } } }`, { id: String(member.id) });
    expect(read.body.data.member.optins).toEqual([
      { kind: 'BRAND', segment: null },
      { kind: 'SEGMENT', segment: { name: 'Newsletter', brand: { name: 'Opt Brand' } } },
    ]);
    const out = await t.graphql(app.apiKey, `mutation($input: OptInInput!) { optOut(input: $input) { kind optedOutAt } }`, {
      input: { memberId: String(member.id), brandId: String(brand.ID) },
    });
    expect(out.body.data.optOut).toEqual({ kind: 'BRAND', optedOutAt: expect.any(String) });
    const rows = await t.database.db
      .select()
      .from(optins)
      .where(and(eq(optins.memberId, member.id), eq(optins.kind, 'brand')));
    expect(rows).toHaveLength(1);
  });
});
