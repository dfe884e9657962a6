import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../src/db/schema/index.js';
import { findMember, maxMergeHops } from '../../src/modules/members/members.queries.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import type { RestAnswer } from '../support/rest.js';
import { createActivity } from '../support/activity-data.js';
import { rollupAgainstRecords } from '../support/kept-differences.js';

/**
 * Merges under concurrency: two opposite merges of one pair, sent at once, leave exactly one
 * survivor; no member ever points at itself, and a lookup never follows pointers for ever.
 * The races show on PostgreSQL (TEST_DATABASE_URL); PGlite runs one statement at a time.
 */

let t: TestGateway;
let app: Tenant;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
});
afterAll(() => t.close());

/** A request that must answer within a few seconds: a lookup that loops fails here instead of hanging the suite. */
async function answered(request: Promise<RestAnswer>, what: string): Promise<RestAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within 10 s`)), 10_000);
  });
  try {
    return await Promise.race([request, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

let counter = 0;
async function register(firstname: string) {
  const email = `merge${++counter}-${Date.now()}@example.com`;
  const response = await t.rest(app, 'POST', '/member/register', { service: 'email', email, password: 'correct horse', firstname });
  expect(response.status, response.body).toBe(200);
  const { data } = response.json[0];
  return { id: data.ID as number, token: data.AccessToken as string, email };
}

describe('opposite merges sent at the same time', () => {
  it('leave exactly one survivor per pair, every lookup answers, and no member points at itself (50 rounds)', async () => {
    const rounds = 50;
    const loserCodes = new Map<string, number>();
    const pairIds: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const [x, y] = await Promise.all([register(`X${round}`), register(`Y${round}`)]);
      pairIds.push(x.id, y.id);
      const [xy, yx] = await Promise.all([
        answered(t.rest(app, 'POST', `/member/${x.id}/merge`, { from: y.id, accesstoken: y.token }), 'merge y into x'),
        answered(t.rest(app, 'POST', `/member/${y.id}/merge`, { from: x.id, accesstoken: x.token }), 'merge x into y'),
      ]);
      const statuses = [xy.status, yx.status];
      expect(statuses, `round ${round}: ${xy.body} / ${yx.body}`).not.toContain(500);
      expect(
        statuses.filter((status) => status === 200),
        `round ${round}: ${xy.body} / ${yx.body}`,
      ).toHaveLength(1);
      const [won, lost] = xy.status === 200 ? [xy, yx] : [yx, xy];
      const survivor = won === xy ? x : y;
      const loser = survivor === x ? y : x;
      expect(won.json.data.ID).toBe(survivor.id);
      expect(won.json.services).toHaveLength(2);
      // The loser waited for the winner, then found its member merged meanwhile: a conflict.
      expect(lost.status, lost.body).toBe(409);
      expect(lost.json.error).toMatchObject({ code: 17 });
      const key = `${lost.json.error.type}:${lost.json.error.param}`;
      loserCodes.set(key, (loserCodes.get(key) ?? 0) + 1);

      for (const id of [x.id, y.id]) {
        const shown = await answered(t.rest(app, 'GET', `/member/${id}`), `GET /member/${id}`);
        expect(shown.status, shown.body).toBe(200);
        expect(shown.json.data.ID).toBe(survivor.id);
      }
      const login = await answered(t.rest(app, 'POST', '/member/login', { service: 'email', email: loser.email, password: 'correct horse' }), 'login with the loser identity');
      expect(login.status, login.body).toBe(200);
      expect(login.json.data.ID).toBe(survivor.id);
    }
    expect([...loserCodes.keys()].every((key) => key.startsWith('CONFLICT:'))).toBe(true);

    const db = t.database.db;
    const [selfPointing] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(members)
      .where(sql`${members.mergedIntoId} = ${members.id}`);
    expect(selfPointing.n).toBe(0);
    // One survivor per pair, and every merged member points straight at a member that is not merged.
    const rows = await db.select().from(members).where(inArray(members.id, pairIds));
    expect(rows.filter((row) => row.mergedIntoId === null)).toHaveLength(rounds);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const row of rows.filter((candidate) => candidate.mergedIntoId !== null)) {
      expect(byId.get(row.mergedIntoId!)?.mergedIntoId).toBeNull();
    }
    // Listings answer too.
    const listed = await answered(t.rest(app, 'GET', '/members/all'), 'member listing');
    expect(listed.status, listed.body).toBe(200);
  }, 180_000);

  it('a merge of members that are one already is a conflict, not a merge into itself', async () => {
    const x = await register('Once');
    const y = await register('Twice');
    expect((await t.rest(app, 'POST', `/member/${x.id}/merge`, { from: y.id, accesstoken: y.token })).status).toBe(200);
    const again = await t.rest(app, 'POST', `/member/${y.id}/merge`, { from: x.id, accesstoken: x.token });
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ code: 17, param: 'from' });
    const self = await t.rest(app, 'POST', `/member/${x.id}/merge`, { from: x.id, accesstoken: x.token });
    expect(self.json.error).toMatchObject({ code: 4, param: 'from' });
    const [row] = await t.database.db.select().from(members).where(eq(members.id, x.id));
    expect(row.mergedIntoId).toBeNull();
  });

  it('concurrent verifications of one address: exactly one member gets it, the others are refused with 1111, none is merged', async () => {
    const shared = `shared-${Date.now()}@example.com`;
    const registered = await Promise.all(Array.from({ length: 6 }, (_, i) => register(`V${i}`)));
    const answers = await Promise.all(registered.map((member) => answered(t.rest(app, 'POST', `/member/${member.id}/verify`, { service: 'email', verified_email: shared }), `verify ${member.id}`)));
    // The verifications of one address take turns (its lock): each after the first sees the address held.
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((candidate) => candidate.status !== 200)) {
      expect(answer.status, answer.body).toBe(409);
      expect(answer.json.error).toMatchObject({ code: 1111, type: 'EMAIL_IN_USE', param: 'verified_email' });
    }
    for (const member of registered) {
      const shown = await answered(t.rest(app, 'GET', `/member/${member.id}`), `GET /member/${member.id}`);
      expect(shown.json.data.ID).toBe(member.id);
    }
    const rows = await t.database.db
      .select()
      .from(members)
      .where(
        inArray(
          members.id,
          registered.map((member) => member.id),
        ),
      );
    expect(rows.filter((row) => row.mergedIntoId !== null)).toEqual([]);
    expect(rows.filter((row) => row.verifiedEmail === shared)).toHaveLength(1);
  }, 60_000);
});

describe('merge pointers', () => {
  it('the database refuses a member merged into itself', async () => {
    const x = await register('Self');
    const error = await t.database.db
      .update(members)
      .set({ mergedIntoId: x.id })
      .where(eq(members.id, x.id))
      .then(
        () => undefined,
        (failure: unknown) => failure as { code?: string; cause?: { code?: string; constraint_name?: string; constraint?: string } },
      );
    expect(error, 'the update was accepted').toBeDefined();
    expect(error!.cause?.code ?? error!.code).toBe('23514');
    const [row] = await t.database.db.select().from(members).where(eq(members.id, x.id));
    expect(row.mergedIntoId).toBeNull();
  });

  it('a lookup follows a bounded number of pointers: a loop or an over-long chain is not found, at once', async () => {
    const db = t.database.db;
    const [a, b] = await Promise.all([register('LoopA'), register('LoopB')]);
    // A loop of two, as only a bug (or a hand edit) could leave; the check forbids only loops of one.
    await db.update(members).set({ mergedIntoId: b.id }).where(eq(members.id, a.id));
    await db.update(members).set({ mergedIntoId: a.id }).where(eq(members.id, b.id));
    const looped = await answered(t.rest(app, 'GET', `/member/${a.id}`), 'lookup of a looping member');
    expect(looped.status).toBe(404);
    expect(looped.json.error).toMatchObject({ code: 5 });
    expect(await findMember(db, app.accountId, b.id)).toBeUndefined();

    const chain = [];
    for (let i = 0; i <= maxMergeHops + 1; i += 1) chain.push(await register(`Chain${i}`));
    for (let i = 0; i < chain.length - 1; i += 1) {
      await db
        .update(members)
        .set({ mergedIntoId: chain[i + 1].id })
        .where(eq(members.id, chain[i].id));
    }
    expect(await findMember(db, app.accountId, chain[0].id)).toBeUndefined();
    // A short chain still answers as its end.
    expect((await findMember(db, app.accountId, chain[chain.length - 3].id))?.id).toBe(chain[chain.length - 1].id);
    const merged = await db
      .select({ id: members.id })
      .from(members)
      .where(and(isNotNull(members.mergedIntoId), inArray(members.id, [a.id, b.id])));
    expect(merged).toHaveLength(2);
  }, 60_000);
});

describe('a merge of a member with years of history', () => {
  it('moves more rollup rows than one statement may carry parameters, and the survivor’s rollup equals its records', async () => {
    const activity = await createActivity(t, app, { name: 'Daily listen', type: 'Listened', points: 2 });
    const [keeper, merged] = await Promise.all([register('Keeper'), register('Years')]);
    // 8,000 days of one activity: 8,000 rollup rows of 9 columns, past the protocol's 65,535 parameters in one statement.
    const days = 8_000;
    await t.database.db.execute(sql`
      insert into activity_records (account_id, member_id, activity_id, points, one_time, completed_at)
      select ${app.accountId}::int, ${merged.id}::int, ${activity}::int, 2, false, now() - make_interval(days => n) from generate_series(1, ${days}::int) n`);
    await t.database.db.execute(sql`
      insert into member_activity_daily (account_id, member_id, day, activity_id, brand_id, service, one_time, count, points)
      select account_id, member_id, (completed_at at time zone 'UTC')::date, activity_id, null, null, false, count(*)::int, sum(points)::int
      from activity_records where account_id = ${app.accountId} and member_id = ${merged.id} group by 1, 2, 3, 4`);
    const answer = await t.rest(app, 'POST', `/member/${keeper.id}/merge`, { from: merged.id, accesstoken: merged.token });
    expect(answer.status, answer.body).toBe(200);
    expect(await rollupAgainstRecords(t.database.db, app.accountId, [keeper.id, merged.id])).toEqual({ differences: 0, rows: days });
  });
});
