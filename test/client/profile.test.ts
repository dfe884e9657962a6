import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../src/db/schema/index.js';
import { createActivity, daysAgo, hoursAgo, insertBrand, record } from '../support/activity-data.js';
import { FanProfileDocument, ViewerDocument, ViewerUpdateDocument } from './generated/graphql.js';
import { startClientGateway, type ClientGateway } from './support.js';

/**
 * Screen (a): a fan's profile as the label's front end shows it (the application's key), and the
 * fan's own page (the member's JWT).
 */
let g: ClientGateway;
let fan = { id: 0, jwt: '', email: '', emailServiceId: '', spotifyServiceId: '' };
let brandId = 0;

async function seed<T = any>(query: string, variables: Record<string, unknown>): Promise<T> {
  const answer = await g.t.graphql<T>(g.tenant.apiKey, query, variables);
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  return answer.body.data!;
}

beforeAll(async () => {
  g = await startClientGateway();
  brandId = await insertBrand(g.t, g.tenant, 'Profile Band');
  const email = `fan-${Date.now()}@example.com`;
  const registered = await seed(
    `mutation ($email: String!) { registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" }, profile: { firstName: "Ada", surname: "Lovelace", country: "GB" } }) { jwt member { id } } }`,
    { email },
  );
  const id = Number(registered.registerMember.member.id);
  const attached = await seed(
    `mutation ($id: ID!) { attachService(memberId: $id, credentials: { network: "spotify", uid: "ada-spotify", authToken: "spotify-token", authSecret: "spotify-secret" }) { member { services { id network } } } }`,
    { id: String(id) },
  );
  const services = attached.attachService.member.services as { id: string; network: string }[];
  await seed(`mutation ($id: ID!, $brandId: ID!) { optIn(input: { memberId: $id, brandId: $brandId }) { id } }`, { id: String(id), brandId: String(brandId) });
  const listen = await createActivity(g.t, g.tenant, { name: 'Listen', type: 'Listened', service: 'spotify', brandid: brandId, points: 2 });
  // Two listens this week; one of last month, outside the profile's week.
  await record(g.t, g.tenant, [
    { activityId: listen, memberId: id, completedAt: hoursAgo(2) },
    { activityId: listen, memberId: id, completedAt: hoursAgo(5) },
    { activityId: listen, memberId: id, completedAt: daysAgo(20) },
  ]);
  fan = {
    id,
    jwt: registered.registerMember.jwt,
    email,
    emailServiceId: services.find((service) => service.network === 'email')!.id,
    spotifyServiceId: services.find((service) => service.network === 'spotify')!.id,
  };
});

afterAll(() => g?.close());

describe("a fan's profile", () => {
  it("shows the member, this week's points, the identities and the opt-ins", async () => {
    const { data } = await g.client().query({ query: FanProfileDocument, variables: { id: String(fan.id) } });
    const member = data!.member!;
    expect(member).toMatchObject({ id: String(fan.id), firstName: 'Ada', surname: 'Lovelace', country: 'GB', score: { points: 4, activityCount: 2 } });
    expect(member.services.map(({ id, network, userId }) => ({ id, network, userId }))).toEqual([
      { id: fan.emailServiceId, network: 'email', userId: fan.email },
      { id: fan.spotifyServiceId, network: 'spotify', userId: 'ada-spotify' },
    ]);
    expect(member.optins.map(({ kind, name, optedOutAt, brand }) => ({ kind, name, optedOutAt, brand: brand && { id: brand.id, name: brand.name } }))).toEqual([
      { kind: 'BRAND', name: 'Profile Band', optedOutAt: null, brand: { id: String(brandId), name: 'Profile Band' } },
    ]);
  });

  it('a member of no one is null with a NOT_FOUND error, in a 200 answer', async () => {
    const before = g.statuses.length;
    const answer = await g.client().query({ query: FanProfileDocument, variables: { id: '999999999' }, errorPolicy: 'all' });
    expect(answer.data).toEqual({ member: null });
    expect(CombinedGraphQLErrors.is(answer.error)).toBe(true);
    expect((answer.error as CombinedGraphQLErrors).errors.map((error) => [error.path, error.extensions?.code])).toEqual([[['member'], 'NOT_FOUND']]);
    expect(g.statuses.slice(before)).toEqual([200]);
  });
});

describe("the fan's own page, with a member JWT", () => {
  it('reads the signed-in member, with no network token', async () => {
    const { data } = await g.client({ jwt: fan.jwt }).query({ query: ViewerDocument });
    expect(data!.viewer).toMatchObject({ id: String(fan.id), firstName: 'Ada', surname: 'Lovelace' });
    expect(data!.viewer!.services.map(({ network, userId, token, tokenSecret }) => ({ network, userId, token, tokenSecret }))).toEqual([
      { network: 'email', userId: fan.email, token: null, tokenSecret: null },
      { network: 'spotify', userId: 'ada-spotify', token: null, tokenSecret: null },
    ]);
  });

  it('edits its own profile: a field error in a 200 answer with nothing written, then the change reaches the cached viewer', async () => {
    const client = g.client({ jwt: fan.jwt });
    await client.query({ query: ViewerDocument });
    const before = g.statuses.length;
    const refused = await client.mutate({ mutation: ViewerUpdateDocument, variables: { input: { firstName: 'Augusta', birthDate: '1815-13-40' } } });
    expect(refused.data!.viewerUpdate.viewer).toBeNull();
    expect(refused.data!.viewerUpdate.userErrors.map(({ field, code }) => ({ field, code }))).toEqual([{ field: ['input', 'birthDate'], code: 'INVALID' }]);
    expect(g.statuses.slice(before)).toEqual([200]);
    const [stored] = await g.t.database.db.select({ firstName: members.firstName, birthDate: members.birthDate }).from(members).where(eq(members.id, fan.id));
    expect(stored).toEqual({ firstName: 'Ada', birthDate: null });
    expect(client.readQuery({ query: ViewerDocument })!.viewer!.firstName).toBe('Ada');

    const changed = await client.mutate({ mutation: ViewerUpdateDocument, variables: { input: { firstName: 'Augusta' } } });
    expect(changed.data!.viewerUpdate).toMatchObject({ viewer: { id: String(fan.id), firstName: 'Augusta', surname: 'Lovelace' }, userErrors: [] });
    // The payload's member is the viewer's cache entry (Member:<id>): the page shows the new name without a refetch.
    expect(client.readQuery({ query: ViewerDocument })!.viewer).toMatchObject({ id: String(fan.id), firstName: 'Augusta' });
  });

  it('shows every field error of one viewerUpdate at once', async () => {
    const client = g.client({ jwt: fan.jwt });
    const refused = await client.mutate({ mutation: ViewerUpdateDocument, variables: { input: { birthDate: '1815-13-40', postCode: 'x'.repeat(21) } } });
    expect(refused.data!.viewerUpdate.userErrors.map(({ field, code }) => ({ field, code }))).toEqual([
      { field: ['input', 'birthDate'], code: 'INVALID' },
      { field: ['input', 'postCode'], code: 'INVALID' },
    ]);
  });
});
