import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityDefinitions, activityRecords, applications, brands } from '../../src/db/schema/index.js';
import { clearKeyCache } from '../../src/modules/tenancy/tenancy.service.js';
import { insertBrand, insertMembers } from '../support/activity-data.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
let app: Tenant;
let basic: Tenant;
let enterprise: Tenant;
let stranger: Tenant;

beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  basic = await t.tenant('basic');
  enterprise = await t.tenant('enterprise');
  stranger = await t.tenant('advanced');
});
afterAll(() => t.close());

async function create(tenant: Tenant, query: Record<string, string>) {
  const response = await t.rest(tenant, 'POST', '/brand/create', query);
  expect(response.status, response.body).toBe(200);
  return response.json;
}

async function brandCount(tenant: Tenant) {
  const [row] = await t.database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(brands)
    .where(eq(brands.accountId, tenant.accountId));
  return row.n;
}

function expectError(response: { status: number; json: any }, status: number, code: number, param: string | null) {
  expect(response.status).toBe(status);
  expect(response.json.error).toMatchObject({ code, param });
}

/** Every network field of an empty brand record, in the record's order. */
const noNetworks = {
  FacebookURL: null,
  FacebookID: null,
  FacebookName: null,
  TwitterURL: null,
  TwitterID: null,
  TwitterScreenName: null,
  YouTubeURL: null,
  YouTubeID: null,
  YouTubeUsername: null,
  InstagramURL: null,
  InstagramID: null,
  InstagramUsername: null,
  TumblrURL: null,
  TumblrID: null,
  TumblrUsername: null,
  SpotifyURL: null,
  SpotifyID: null,
  DeezerURL: null,
  DeezerID: null,
  SoundCloudURL: null,
  SoundCloudID: null,
  SoundCloudUsername: null,
  LastfmURL: null,
  LastfmID: null,
  LastfmName: null,
  iTunesURL: null,
  iTunesID: null,
  GoogleURL: null,
  GoogleID: null,
  GoogleName: null,
};

describe('POST /v1.1/brand/create', () => {
  it('answers the brand record with network ids read from the URLs, and warns about URLs it cannot read', async () => {
    const body = await create(app, {
      name: 'Adele',
      type: 'music',
      officialwebsiteurl: 'https://www.adele.com',
      wikipediaurl: 'https://en.wikipedia.org/wiki/Adele',
      imageurl: 'https://img.example.com/adele.jpg',
      hashtag: '#Adele25',
      spotifyurl: 'https://open.spotify.com/artist/4dpARuHxo51G3z768sgnrY',
      twitterurl: 'https://twitter.com/Adele',
      youtubeurl: 'https://www.youtube.com/channel/UComP_epzeKzvBX156r6pm1Q',
      instagramurl: 'instagram.com/adele',
      facebookurl: 'https://www.facebook.com/pages/Adele/104386862956',
      deezerurl: 'https://www.deezer.com/artist/75798',
      lastfmurl: 'https://www.last.fm/music/Adele',
      itunesurl: 'https://itunes.apple.com/us/artist/adele/id262836961',
      soundcloudurl: 'https://soundcloud.com/adele',
      tumblrurl: 'https://adele.tumblr.com',
      googleurl: 'https://plus.google.com/+Adele',
    });
    expect(body).toEqual({
      ID: expect.any(Number),
      Slug: 'adele',
      Name: 'Adele',
      Type: 'Music',
      OfficialWebsiteURL: 'https://www.adele.com',
      WikipediaURL: 'https://en.wikipedia.org/wiki/Adele',
      ImageURL: 'https://img.example.com/adele.jpg',
      FacebookURL: 'https://www.facebook.com/pages/Adele/104386862956',
      FacebookID: '104386862956',
      FacebookName: 'Adele',
      TwitterURL: 'https://twitter.com/Adele',
      TwitterID: null,
      TwitterScreenName: 'Adele',
      YouTubeURL: 'https://www.youtube.com/channel/UComP_epzeKzvBX156r6pm1Q',
      YouTubeID: 'UComP_epzeKzvBX156r6pm1Q',
      YouTubeUsername: null,
      InstagramURL: 'instagram.com/adele',
      InstagramID: null,
      InstagramUsername: 'adele',
      TumblrURL: 'https://adele.tumblr.com',
      TumblrID: null,
      TumblrUsername: 'adele',
      SpotifyURL: 'https://open.spotify.com/artist/4dpARuHxo51G3z768sgnrY',
      SpotifyID: '4dpARuHxo51G3z768sgnrY',
      DeezerURL: 'https://www.deezer.com/artist/75798',
      DeezerID: '75798',
      SoundCloudURL: 'https://soundcloud.com/adele',
      SoundCloudID: null,
      SoundCloudUsername: 'adele',
      LastfmURL: 'https://www.last.fm/music/Adele',
      LastfmID: null,
      LastfmName: 'Adele',
      iTunesURL: 'https://itunes.apple.com/us/artist/adele/id262836961',
      iTunesID: '262836961',
      GoogleURL: 'https://plus.google.com/+Adele',
      GoogleID: null,
      GoogleName: 'Adele',
      HashTag: 'Adele25',
      Custom: {},
      Warnings: [],
    });
    const shown = await t.rest(app, 'GET', `/brand/${body.ID}`);
    expect(shown.status).toBe(200);
    const { Warnings: _warnings, ...record } = body;
    expect(shown.json).toEqual(record);
  });

  it('keeps a URL it cannot read, without an id, and says so in Warnings', async () => {
    const body = await create(app, { name: 'Warned', spotifyurl: 'https://open.spotify.com/user/someone', twitterurl: 'https://x.com/warned' });
    expect(body).toMatchObject({ Type: 'Music', SpotifyURL: 'https://open.spotify.com/user/someone', SpotifyID: null, TwitterScreenName: 'warned' });
    expect(body.Warnings).toEqual([{ Param: 'spotifyurl', Message: expect.stringContaining('Spotify') }]);
  });

  it('gives colliding names numbered slugs, and frees a slug when its brand is deleted', async () => {
    const first = await create(app, { name: 'The Kinks!', type: 'TV' });
    const second = await create(app, { name: 'the kinks', type: 'video game' });
    const third = await create(app, { name: 'THE   KINKS', type: 'Influencer' });
    expect([first.Slug, second.Slug, third.Slug]).toEqual(['the-kinks', 'the-kinks-2', 'the-kinks-3']);
    expect([first.Type, second.Type, third.Type]).toEqual(['TV', 'Video Game', 'Influencer']);
    expect((await t.rest(app, 'POST', `/brand/${first.ID}/delete`)).json).toEqual({ Result: true });
    expect((await create(app, { name: 'The Kinks' })).Slug).toBe('the-kinks');
    // Another account has its own slugs.
    expect((await create(stranger, { name: 'The Kinks' })).Slug).toBe('the-kinks');
    expect((await create(app, { name: '東京' })).Slug).toMatch(/^brand(-\d+)?$/);
  });

  it('refuses bad input with the parameter at fault, and writes nothing', async () => {
    const before = await brandCount(app);
    expectError(await t.rest(app, 'POST', '/brand/create', { type: 'Music' }), 400, 3, 'name');
    expectError(await t.rest(app, 'POST', '/brand/create', { name: 'X', type: 'Artist' }), 400, 4, 'type');
    expectError(await t.rest(app, 'POST', '/brand/create', { name: 'X', officialwebsiteurl: 'ftp://x.example.com' }), 400, 4, 'officialwebsiteurl');
    expectError(await t.rest(app, 'POST', '/brand/create', { name: 'X', wikipediaurl: 'not a url' }), 400, 4, 'wikipediaurl');
    expectError(await t.rest(app, 'POST', '/brand/create', { name: 'X', hashtag: 'two words' }), 400, 4, 'hashtag');
    expectError(await t.rest(app, 'POST', '/brand/create', { name: 'X', custom: '[1,2]' }), 400, 4, 'custom');
    expectError(await t.rest(app, 'POST', '/brand/create', { name: 'x'.repeat(201) }), 400, 4, 'name');
    expect(await brandCount(app)).toBe(before);
  });

  it('needs an advanced plan', async () => {
    expectError(await t.rest(basic, 'POST', '/brand/create', { name: 'Nope' }), 403, 9, null);
    expectError(await t.rest(basic, 'POST', '/brand/1/edit', { name: 'Nope' }), 403, 9, null);
    expectError(await t.rest(basic, 'POST', '/brand/1/delete'), 403, 9, null);
    expect(await brandCount(basic)).toBe(0);
  });

  it('stores custom fields only for enterprise applications with the feature switched on', async () => {
    expectError(await t.rest(app, 'POST', '/brand/create', { name: 'Custom', custom: '{"tier":"gold"}' }), 403, 12, 'custom');
    expectError(await t.rest(enterprise, 'POST', '/brand/create', { name: 'Custom', custom: '{"tier":"gold"}' }), 403, 12, 'custom');
    expect(await brandCount(enterprise)).toBe(0);
    await t.database.db
      .update(applications)
      .set({ settings: { features: ['brandCustomFields'] } })
      .where(eq(applications.id, enterprise.applicationId));
    clearKeyCache();
    const body = await create(enterprise, { name: 'Custom', custom: '{"tier":"gold","rank":3}' });
    expect(body.Custom).toEqual({ tier: 'gold', rank: 3 });
    const edited = await t.rest(enterprise, 'POST', `/brand/${body.ID}/edit`, { custom: '{"rank":null,"region":"EU"}' });
    expect(edited.json.Custom).toEqual({ tier: 'gold', region: 'EU' });
  });
});

describe('GET /v1.1/brand/[id] and /v1.1/brands', () => {
  it('lists live brands by id with totalSize, a type filter (any stored type) and offset paging', async () => {
    const tenant = await t.tenant('advanced');
    const a = await create(tenant, { name: 'A', type: 'Sport' });
    const b = await create(tenant, { name: 'B', type: 'Music' });
    const artist = await insertBrand(t, tenant, 'Old Artist', 'Artist');
    const c = await create(tenant, { name: 'C', type: 'sport' });
    const gone = await create(tenant, { name: 'Gone', type: 'Sport' });
    await t.rest(tenant, 'POST', `/brand/${gone.ID}/delete`);

    const all = (await t.rest(tenant, 'GET', '/brands')).json;
    expect(all.totalSize).toBe(4);
    expect(all.items.map((item: { ID: number }) => item.ID)).toEqual([a.ID, b.ID, artist, c.ID]);
    expect(all.items[2]).toEqual({
      ID: artist,
      Slug: 'old-artist',
      Name: 'Old Artist',
      Type: 'Artist',
      OfficialWebsiteURL: null,
      WikipediaURL: null,
      ImageURL: null,
      ...noNetworks,
      HashTag: null,
      Custom: {},
    });

    const sport = (await t.rest(tenant, 'GET', '/brands', { type: 'SPORT' })).json;
    expect(sport).toMatchObject({ totalSize: 2, items: [{ ID: a.ID }, { ID: c.ID }] });
    expect((await t.rest(tenant, 'GET', '/brands', { type: 'artist' })).json.items.map((i: { ID: number }) => i.ID)).toEqual([artist]);

    const page = (await t.rest(tenant, 'GET', '/brands', { limit: '1,2' })).json;
    expect(page.totalSize).toBe(4);
    expect(page.items.map((item: { ID: number }) => item.ID)).toEqual([b.ID, artist]);
    expectError(await t.rest(tenant, 'GET', '/brands', { limit: 'x' }), 400, 4, 'limit');
  });

  it("answers not found for another account's brand, a deleted brand and a malformed id", async () => {
    const mine = await create(app, { name: 'Mine' });
    expectError(await t.rest(stranger, 'GET', `/brand/${mine.ID}`), 404, 5, 'id');
    expectError(await t.rest(stranger, 'POST', `/brand/${mine.ID}/edit`, { name: 'Theirs' }), 404, 5, 'id');
    expectError(await t.rest(stranger, 'POST', `/brand/${mine.ID}/delete`), 404, 5, 'id');
    expect((await t.rest(app, 'GET', `/brand/${mine.ID}`)).json.Name).toBe('Mine');
    expectError(await t.rest(app, 'GET', '/brand/abc'), 400, 4, 'id');
    expectError(await t.rest(app, 'GET', '/brand/999999'), 404, 5, 'id');
  });
});

describe('POST /v1.1/brand/[id]/edit and /delete', () => {
  it('changes only the fields given, reads network URLs again, and follows a rename with the slug', async () => {
    const brand = await create(app, { name: 'Editable', twitterurl: 'https://twitter.com/old', spotifyurl: 'spotify:artist:4dpARuHxo51G3z768sgnrY' });
    const edited = await t.rest(app, 'POST', `/brand/${brand.ID}/edit`, { name: 'Edited Name', twitterurl: 'https://x.com/new', youtubeurl: 'https://www.youtube.com/watch?v=1' });
    expect(edited.status, edited.body).toBe(200);
    expect(edited.json).toMatchObject({
      ID: brand.ID,
      Slug: 'edited-name',
      Name: 'Edited Name',
      Type: 'Music',
      TwitterURL: 'https://x.com/new',
      TwitterScreenName: 'new',
      SpotifyID: '4dpARuHxo51G3z768sgnrY',
      YouTubeURL: 'https://www.youtube.com/watch?v=1',
      YouTubeID: null,
      Warnings: [{ Param: 'youtubeurl', Message: expect.any(String) }],
    });
    const again = await t.rest(app, 'POST', `/brand/${brand.ID}/edit`, { type: 'consumer' });
    expect(again.json).toMatchObject({ Slug: 'edited-name', Name: 'Edited Name', Type: 'Consumer', TwitterScreenName: 'new', Warnings: [] });
  });

  it('refuses bad input and leaves the brand as it was', async () => {
    const brand = await create(app, { name: 'Stable', type: 'Sport' });
    expectError(await t.rest(app, 'POST', `/brand/${brand.ID}/edit`, { type: 'Artist', name: 'Changed' }), 400, 4, 'type');
    expectError(await t.rest(app, 'POST', `/brand/${brand.ID}/edit`, { imageurl: 'javascript:alert(1)' }), 400, 4, 'imageurl');
    expect((await t.rest(app, 'GET', `/brand/${brand.ID}`)).json).toMatchObject({ Name: 'Stable', Type: 'Sport', ImageURL: null });
  });

  it('soft-deletes: the brand is not found any more, its activity history stays', async () => {
    const brand = await create(app, { name: 'Retiring' });
    const [member] = await insertMembers(t, app, [{}]);
    const [definition] = await t.database.db.insert(activityDefinitions).values({ accountId: app.accountId, brandId: brand.ID, name: 'Listen', type: 'Listened', points: 1 }).returning();
    await t.database.db.insert(activityRecords).values({
      accountId: app.accountId,
      memberId: member,
      activityId: definition.id,
      brandId: brand.ID,
      points: 1,
      completedAt: new Date(),
    });
    expect((await t.rest(app, 'POST', `/brand/${brand.ID}/delete`)).json).toEqual({ Result: true });
    expectError(await t.rest(app, 'GET', `/brand/${brand.ID}`), 404, 5, 'id');
    expectError(await t.rest(app, 'POST', `/brand/${brand.ID}/delete`), 404, 5, 'id');
    expect((await t.rest(app, 'GET', '/brands', { limit: 1000 })).json.items.map((i: { ID: number }) => i.ID)).not.toContain(brand.ID);
    const [row] = await t.database.db.select().from(brands).where(eq(brands.id, brand.ID));
    expect(row.deletedAt).toBeInstanceOf(Date);
    const records = await t.database.db
      .select()
      .from(activityRecords)
      .where(and(eq(activityRecords.brandId, brand.ID), eq(activityRecords.memberId, member)));
    expect(records).toHaveLength(1);
  });
});

describe('GraphQL', () => {
  it('creates, reads and lists brands with their networks and segments', async () => {
    const created = await t.graphql(
      app.apiKey,
      `mutation($input: BrandInput!) { createBrand(input: $input) {
      brand { id slug name type networks { network url id handle } } warnings { param message } } }`,
      {
        input: {
          name: 'Graph Brand',
          type: 'MOVIE',
          networks: [
            { network: 'deezer', url: 'https://www.deezer.com/artist/27' },
            { network: 'lastfm', url: 'https://example.com' },
          ],
        },
      },
    );
    expect(created.body.errors).toBeUndefined();
    const { brand, warnings } = created.body.data.createBrand;
    expect(brand).toEqual({
      id: expect.any(String),
      slug: 'graph-brand',
      name: 'Graph Brand',
      type: 'Movie',
      networks: [
        { network: 'deezer', url: 'https://www.deezer.com/artist/27', id: '27', handle: null },
        { network: 'lastfm', url: 'https://example.com', id: null, handle: null },
      ],
    });
    expect(warnings).toEqual([{ param: 'lastfmurl', message: expect.any(String) }]);
    const removed = await t.graphql(app.apiKey, `mutation($id: ID!, $input: BrandInput!) { editBrand(id: $id, input: $input) { brand { networks { network } } } }`, {
      id: brand.id,
      input: { networks: [{ network: 'lastfm', url: null }] },
    });
    expect(removed.body.data.editBrand.brand.networks).toEqual([{ network: 'deezer' }]);
    const read = await t.graphql(app.apiKey, `query($id: ID!) { brand(id: $id) { name segments { id } } brands(type: "MOVIE", first: 5) { totalCount nodes { id } } }`, { id: brand.id });
    expect(read.body.data).toEqual({ brand: { name: 'Graph Brand', segments: [] }, brands: { totalCount: 1, nodes: [{ id: brand.id }] } });
    const basicCall = await t.graphql(basic.apiKey, `mutation { createBrand(input: { name: "No" }) { brand { id } } }`);
    expect(basicCall.body.errors[0].extensions).toMatchObject({ code: 'PLAN_REQUIRED', aeCode: 9 });
    const unknownNetwork = await t.graphql(app.apiKey, `mutation { createBrand(input: { name: "No", networks: [{ network: "myspace", url: "x" }] }) { brand { id } } }`);
    expect(unknownNetwork.body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', param: 'network' });
  });
});

describe('GraphQL brands connection', () => {
  const page = `query($type: String, $first: Int, $after: String, $offset: Int) {
    brands(type: $type, first: $first, after: $after, offset: $offset) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id name } }
      nodes { id }
    }
  }`;

  interface BrandPage {
    totalCount: number;
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
    edges: { cursor: string; node: { id: string; name: string } }[];
    nodes: { id: string }[];
  }

  async function brandsPage(tenant: Tenant, variables: Record<string, unknown>): Promise<BrandPage> {
    const result = await t.graphql(tenant.apiKey, page, variables);
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    return result.body.data.brands;
  }

  /** Every page from the first, following endCursor; each page checked against the connection's rules. */
  async function walk(tenant: Tenant, variables: Record<string, unknown>) {
    const ids: number[] = [];
    const totals = new Set<number>();
    let after: string | null = null;
    for (let pages = 0; pages < 20; pages += 1) {
      const connection = await brandsPage(tenant, { ...variables, after });
      totals.add(connection.totalCount);
      expect(connection.nodes).toEqual(connection.edges.map((edge) => ({ id: edge.node.id })));
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(connection.pageInfo.startCursor).toBe(connection.edges[0]?.cursor ?? null);
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)?.cursor ?? null);
      ids.push(...connection.edges.map((edge) => Number(edge.node.id)));
      if (!connection.pageInfo.hasNextPage) return { ids, totals: [...totals] };
      after = connection.pageInfo.endCursor;
    }
    throw new Error('the walk did not end');
  }

  it('walks every page by cursor, in id order, with the whole count on each page', async () => {
    const owner = await t.tenant('advanced');
    const ids: number[] = [];
    for (const [index, type] of ['Music', 'Sport', 'Music', 'Movie', 'Music', 'Sport', 'Music'].entries()) ids.push(await insertBrand(t, owner, `Paged ${index}`, type));
    await t.database.db.update(brands).set({ deletedAt: new Date() }).where(eq(brands.id, ids[4]));
    const live = ids.filter((id) => id !== ids[4]);

    for (const first of [1, 2, 3, 6, 10]) {
      expect(await walk(owner, { first }), `first ${first}`).toEqual({ ids: live, totals: [6] });
    }
    const music = [ids[0], ids[2], ids[6]];
    expect(await walk(owner, { first: 2, type: 'music' })).toEqual({ ids: music, totals: [3] });

    // The last page: no next page; an empty page has no cursors.
    const last = await brandsPage(owner, { first: 6 });
    expect(last.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: last.edges[0].cursor, endCursor: last.edges[5].cursor });
    const beyond = await brandsPage(owner, { first: 2, after: last.pageInfo.endCursor });
    expect(beyond).toEqual({ totalCount: 6, pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null }, edges: [], nodes: [] });

    // offset skips from the cursor on, as REST's [offset],[limit] skips from the start.
    const second = await brandsPage(owner, { first: 2, offset: 1, after: last.edges[0].cursor });
    expect(second.edges.map((edge) => Number(edge.node.id))).toEqual(live.slice(2, 4));
    expect(second.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const offsetOnly = await brandsPage(owner, { first: 2, offset: 4 });
    expect(offsetOnly.edges.map((edge) => Number(edge.node.id))).toEqual(live.slice(4, 6));
    expect(offsetOnly.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });

    // A cursor stands for its brand: a brand deleted after the page was read does not shift the next page.
    const firstPage = await brandsPage(owner, { first: 2 });
    await t.database.db.update(brands).set({ deletedAt: new Date() }).where(eq(brands.id, live[0]));
    const next = await brandsPage(owner, { first: 2, after: firstPage.pageInfo.endCursor });
    expect(next.edges.map((edge) => Number(edge.node.id))).toEqual(live.slice(2, 4));
    expect(next.totalCount).toBe(5);

    // Another account lists its own brands only, whatever cursor it is handed.
    const other = await t.tenant('advanced');
    const theirs = await insertBrand(t, other, 'Paged elsewhere');
    expect(await walk(other, { first: 1 })).toEqual({ ids: [theirs], totals: [1] });
    expect((await brandsPage(other, { first: 10, after: firstPage.edges[0].cursor })).edges.map((edge) => Number(edge.node.id))).toEqual([theirs]);
  });

  it('refuses a malformed cursor or page size with the parameter at fault', async () => {
    for (const [variables, param] of [
      [{ after: 'nonsense' }, 'after'],
      [{ after: Buffer.from('{"i":"x"}').toString('base64url') }, 'after'],
      [{ first: 0 }, 'first'],
      [{ first: -1 }, 'first'],
      [{ offset: -1 }, 'offset'],
    ] as const) {
      const result = await t.graphql(app.apiKey, page, variables);
      expect(result.body.errors?.[0]?.extensions, JSON.stringify(variables)).toMatchObject({ code: 'INVALID_PARAMETER', param });
    }
  });
});
