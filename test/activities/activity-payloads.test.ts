import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityDefinitions, activityRecords } from '../../src/db/schema/index.js';
import { insertBrand, insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { listenForGraphql, type HttpGraphql } from '../support/graphql-http.js';

let t: TestGateway;
let gql: HttpGraphql;
let app: Tenant;
let basic: Tenant;
let stranger: Tenant;
let brandId: number;
let strangerBrandId: number;
let memberId: number;
let strangerMemberId: number;
const memberEmail = `fan-${process.pid}@example.com`;
const strangerEmail = `other-${process.pid}@example.com`;

beforeAll(async () => {
  t = await startTestGateway();
  gql = await listenForGraphql(t);
  app = await t.tenant('advanced');
  basic = await t.tenant('basic');
  stranger = await t.tenant('advanced');
  brandId = await insertBrand(t, app, 'Recorded');
  strangerBrandId = await insertBrand(t, stranger, 'Elsewhere');
  [memberId] = await insertMembers(t, app, [{ email: memberEmail }]);
  [strangerMemberId] = await insertMembers(t, stranger, [{ email: strangerEmail }]);
});
afterAll(() => t.close());

/** The tenant's definitions and records: what a refused mutation must leave as it was. */
async function stored(tenant: Tenant) {
  const definitions = await t.database.db.select().from(activityDefinitions).where(eq(activityDefinitions.accountId, tenant.accountId)).orderBy(activityDefinitions.id);
  const records = await t.database.db.select().from(activityRecords).where(eq(activityRecords.accountId, tenant.accountId)).orderBy(activityRecords.id);
  return { definitions, records };
}

const activityFields = 'activity { id name shortName type service brandId points oneTime tracking { url trackIds albumIds } } userErrors { field code message }';
const create = `mutation($input: ActivityInput!) { activityCreate(input: $input) { ${activityFields} } }`;
const update = `mutation($id: ID!, $input: EditActivityInput!) { activityUpdate(id: $id, input: $input) { ${activityFields} } }`;
const remove = `mutation($id: ID!) { activityDelete(id: $id) { deletedActivityId userErrors { field code message } } }`;
const recordOne = `mutation($input: ActivityRecordInput!) { activityRecord(input: $input) {
  record { id activityId memberId brandId service points value marker link } created userErrors { field code message } } }`;

async function created(tenant: Tenant, input: Record<string, unknown>): Promise<string> {
  const answer = await gql(tenant.apiKey, create, { input });
  expect(answer.body.data?.activityCreate.userErrors).toEqual([]);
  return answer.body.data.activityCreate.activity.id;
}

describe('activityCreate', () => {
  it('creates a definition on any plan and answers it', async () => {
    for (const tenant of [app, basic]) {
      const answer = await gql(tenant.apiKey, create, {
        input: { name: ' Stream ', shortName: 'S', type: 'LISTENED', service: 'Spotify', points: 5, tracking: { url: 'https://example.com/track', trackIds: [' t1 ', ''] } },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        data: {
          activityCreate: {
            activity: {
              id: expect.stringMatching(/^\d+$/),
              name: 'Stream',
              shortName: 'S',
              type: 'LISTENED',
              service: 'spotify',
              brandId: null,
              points: 5,
              oneTime: false,
              tracking: { url: 'https://example.com/track', trackIds: ['t1'], albumIds: [] },
            },
            userErrors: [],
          },
        },
      });
    }
  });

  it('answers every problem of the form at once, tracking fields under tracking, and writes nothing', async () => {
    const before = await stored(app);
    const answer = await gql(app.apiKey, create, {
      input: {
        name: 'n'.repeat(201),
        shortName: 's'.repeat(101),
        type: 'LISTENED',
        service: 'myspace',
        points: -1,
        brandId: String(strangerBrandId),
        tracking: { url: 'ftp://example.com', trackIds: ['t'.repeat(201)], albumIds: ['a'.repeat(201)] },
      },
    });
    expect(answer.body).toEqual({
      data: {
        activityCreate: {
          activity: null,
          userErrors: [
            { field: ['input', 'name'], code: 'INVALID', message: "The parameter 'name' is invalid: expected at most 200 characters." },
            { field: ['input', 'shortName'], code: 'INVALID', message: "The parameter 'shortName' is invalid: expected at most 100 characters." },
            { field: ['input', 'service'], code: 'INVALID', message: "The parameter 'service' is invalid: expected a network identifier such as spotify or youtube." },
            { field: ['input', 'points'], code: 'INVALID', message: "The parameter 'points' is invalid: expected a whole number from 0 to 1000000." },
            { field: ['input', 'tracking', 'url'], code: 'INVALID', message: "The parameter 'url' is invalid: expected an http(s) URL." },
            { field: ['input', 'tracking', 'trackIds'], code: 'INVALID', message: "The parameter 'trackids' is invalid: expected ids of at most 200 characters." },
            { field: ['input', 'tracking', 'albumIds'], code: 'INVALID', message: "The parameter 'albumids' is invalid: expected ids of at most 200 characters." },
            { field: ['input', 'brandId'], code: 'NOT_FOUND', message: 'Brand not found.' },
          ],
        },
      },
    });
    expect(await stored(app)).toEqual(before);
  });

  it('keeps the first mutation of a document when the second answers user errors', async () => {
    const answer = await gql(
      app.apiKey,
      `mutation { first: activityCreate(input: { name: "Kept", type: LIKED }) { activity { name } userErrors { field } }
        second: activityCreate(input: { name: " ", type: LIKED }) { activity { name } userErrors { field code } } }`,
    );
    expect(answer.body).toEqual({
      data: {
        first: { activity: { name: 'Kept' }, userErrors: [] },
        second: { activity: null, userErrors: [{ field: ['input', 'name'], code: 'REQUIRED' }] },
      },
    });
  });
});

describe('activityUpdate and activityDelete', () => {
  it('change the fields given, then retire the definition', async () => {
    const id = await created(app, { name: 'Watch', type: 'WATCHED' });
    const answer = await gql(app.apiKey, update, { id, input: { name: 'Watch live', type: 'ATTENDED', brandId: String(brandId), points: 3, shortName: '' } });
    expect(answer.body.data.activityUpdate).toEqual({
      activity: { id, name: 'Watch live', shortName: null, type: 'ATTENDED', service: null, brandId: String(brandId), points: 3, oneTime: false, tracking: { url: null, trackIds: [], albumIds: [] } },
      userErrors: [],
    });
    expect((await gql(app.apiKey, remove, { id })).body).toEqual({ data: { activityDelete: { deletedActivityId: id, userErrors: [] } } });
    expect((await gql(app.apiKey, remove, { id })).body).toEqual({
      data: { activityDelete: { deletedActivityId: null, userErrors: [{ field: ['id'], code: 'NOT_FOUND', message: 'Activity not found.' }] } },
    });
  });

  it('answer every problem at once and change nothing', async () => {
    const id = await created(app, { name: 'Unchanged', type: 'SHARED' });
    const before = await stored(app);
    const answer = await gql(app.apiKey, update, { id, input: { name: '', type: null, service: 'myspace', points: 1_000_001, brandId: '999999', tracking: { url: 'nope' } } });
    expect(answer.body.data.activityUpdate).toEqual({
      activity: null,
      userErrors: [
        { field: ['input', 'name'], code: 'REQUIRED', message: "The parameter 'name' is required." },
        { field: ['input', 'type'], code: 'INVALID', message: expect.stringMatching(/^The parameter 'type' is invalid: expected one of Listened, /) },
        { field: ['input', 'service'], code: 'INVALID', message: "The parameter 'service' is invalid: expected a network identifier such as spotify or youtube." },
        { field: ['input', 'points'], code: 'INVALID', message: "The parameter 'points' is invalid: expected a whole number from 0 to 1000000." },
        { field: ['input', 'tracking', 'url'], code: 'INVALID', message: "The parameter 'url' is invalid: expected an http(s) URL." },
        { field: ['input', 'brandId'], code: 'NOT_FOUND', message: 'Brand not found.' },
      ],
    });
    expect(await stored(app)).toEqual(before);
  });

  it("answer another tenant's definition as NOT_FOUND at id, leave it as it was, and keep the plan top-level", async () => {
    const theirs = await created(stranger, { name: 'Theirs', type: 'VISITED' });
    const before = await stored(stranger);
    const notFound = [{ field: ['id'], code: 'NOT_FOUND', message: 'Activity not found.' }];
    expect((await gql(app.apiKey, update, { id: theirs, input: { name: 'Mine' } })).body).toEqual({ data: { activityUpdate: { activity: null, userErrors: notFound } } });
    expect((await gql(app.apiKey, remove, { id: theirs })).body).toEqual({ data: { activityDelete: { deletedActivityId: null, userErrors: notFound } } });
    expect(await stored(stranger)).toEqual(before);
    const plan = await gql(basic.apiKey, update, { id: theirs, input: { name: 'Mine' } });
    expect(plan.body.data).toEqual({ activityUpdate: null });
    expect(plan.body.errors![0]).toMatchObject({ path: ['activityUpdate'], extensions: { code: 'PLAN_REQUIRED' } });
  });
});

describe('activityRecord', () => {
  it('records an activity of a member named by a MemberRef; a repeat of its marker answers the stored record', async () => {
    const activityId = await created(app, { name: 'Listen', type: 'LISTENED', service: 'spotify', points: 2, brandId: String(brandId) });
    const input = { activityId, member: { email: memberEmail.toUpperCase() }, value: 2.5, marker: 'first-listen', link: 'https://example.com/l' };
    const answer = await gql(app.apiKey, recordOne, { input });
    expect(answer.status).toBe(200);
    const record = {
      id: expect.stringMatching(/^\d+$/),
      activityId,
      memberId: String(memberId),
      brandId: String(brandId),
      service: 'spotify',
      points: 2,
      value: 2.5,
      marker: 'first-listen',
      link: 'https://example.com/l',
    };
    expect(answer.body).toEqual({ data: { activityRecord: { record, created: true, userErrors: [] } } });
    const again = await gql(app.apiKey, recordOne, { input: { ...input, member: { id: String(memberId) } } });
    expect(again.body).toEqual({ data: { activityRecord: { record: { ...record, id: answer.body.data.activityRecord.record.id }, created: false, userErrors: [] } } });
  });

  it("answers every problem at once, another tenant's activity, member and brand NOT_FOUND, and writes nothing", async () => {
    const theirActivity = await created(stranger, { name: 'Their listen', type: 'LISTENED' });
    const before = await stored(app);
    const strangerBefore = await stored(stranger);
    const answer = await gql(app.apiKey, recordOne, {
      input: {
        activityId: theirActivity,
        member: { email: strangerEmail },
        brandId: String(strangerBrandId),
        completedAt: new Date(Date.now() + 3_600_000).toISOString(),
        service: 'myspace',
        link: 'l'.repeat(2001),
        category: 'c'.repeat(201),
      },
    });
    expect(answer.body).toEqual({
      data: {
        activityRecord: {
          record: null,
          created: false,
          userErrors: [
            { field: ['input', 'activityId'], code: 'NOT_FOUND', message: 'Activity not found.' },
            { field: ['input', 'member', 'email'], code: 'NOT_FOUND', message: 'Member not found.' },
            { field: ['input', 'brandId'], code: 'NOT_FOUND', message: 'Brand not found.' },
            { field: ['input', 'completedAt'], code: 'INVALID', message: "The parameter 'timestamp' is invalid: expected a time that is not in the future." },
            { field: ['input', 'service'], code: 'INVALID', message: "The parameter 'service' is invalid: expected a network identifier such as spotify or youtube." },
            { field: ['input', 'link'], code: 'INVALID', message: "The parameter 'link' is invalid: expected at most 2000 characters." },
            { field: ['input', 'category'], code: 'INVALID', message: "The parameter 'category' is invalid: expected at most 200 characters." },
          ],
        },
      },
    });
    const byId = await gql(app.apiKey, recordOne, { input: { activityId: theirActivity, member: { id: String(strangerMemberId) } } });
    expect(byId.body.data.activityRecord.userErrors).toEqual([
      { field: ['input', 'activityId'], code: 'NOT_FOUND', message: 'Activity not found.' },
      { field: ['input', 'member', 'id'], code: 'NOT_FOUND', message: 'Member not found.' },
    ]);
    expect(await stored(app)).toEqual(before);
    expect(await stored(stranger)).toEqual(strangerBefore);
  });

  it('keeps the plan a top-level error and refuses a member named two ways before anything runs', async () => {
    const activityId = await created(basic, { name: 'Basic listen', type: 'LISTENED' });
    const plan = await gql(basic.apiKey, recordOne, { input: { activityId, member: { email: memberEmail } } });
    expect(plan.body.data).toEqual({ activityRecord: null });
    expect(plan.body.errors![0]).toMatchObject({ path: ['activityRecord'], extensions: { code: 'PLAN_REQUIRED' } });
    const twoWays = await gql(app.apiKey, recordOne, { input: { activityId, member: { email: memberEmail, id: String(memberId) } } });
    expect(twoWays.body.data).toBeUndefined();
    expect(twoWays.body.errors![0].message).toMatch(/Exactly one key must be specified for OneOf type "MemberRef"/);
  });

  it('deprecates the old definition mutations, naming their successors', async () => {
    const schema = await gql(app.apiKey, `{ __schema { mutationType { fields(includeDeprecated: true) { name deprecationReason } } } }`);
    const reasons = Object.fromEntries((schema.body.data.__schema.mutationType.fields as { name: string; deprecationReason: string | null }[]).map((field) => [field.name, field.deprecationReason]));
    expect(reasons).toMatchObject({ createActivity: 'Use activityCreate.', editActivity: 'Use activityUpdate.', deleteActivity: 'Use activityDelete.', activityRecord: null });
  });
});
