import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberServices, presaveJobs } from '../../src/db/schema/index.js';
import { createTokenCipher } from '../../src/modules/identity/token-cipher.js';
import { NetworkError } from '../../src/modules/networks/adapter.js';
import { externalNetworks } from '../../src/modules/networks/networks.js';
import { createNetworkAdapters } from '../../src/modules/networks/registry.js';
import { insertMembers } from '../support/activity-data.js';
import { startFakeNetworks, type FakeNetworks } from '../support/fake-networks.js';
import { startTestGateway, testSecretKey, type Tenant, type TestGateway } from '../support/gateway.js';

const cipher = createTokenCipher(testSecretKey);
const track = '6rqhFgbbKwnb9MLmUQDhG6';

let fake: FakeNetworks;
let t: TestGateway;
let app: Tenant;
let basic: Tenant;
let stranger: Tenant;
let segment: string;

beforeAll(async () => {
  fake = await startFakeNetworks();
  t = await startTestGateway({}, undefined, { networks: { baseUrls: fake.baseUrls, tokenUrls: fake.tokenUrls } });
  app = await t.tenant('advanced');
  basic = await t.tenant('basic');
  stranger = await t.tenant('advanced');
  segment = (await t.rest(app, 'POST', '/segment/create', { name: 'Presave list' })).json.ID;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

let next = 0;
/** A member of `app` with the given music links (token known to the fake network unless `refused`), opted into the segment unless told. */
async function fan(links: { network: 'spotify' | 'deezer'; refused?: boolean; valid?: boolean }[], optIn = true) {
  const [memberId] = await insertMembers(t, app, [{ network: 'email' }]);
  for (const link of links) {
    const uid = `${link.network}-${++next}`;
    const token = `${uid}-token`;
    if (!link.refused) fake.addUser({ network: link.network, uid, token });
    await t.database.db.insert(memberServices).values({
      accountId: app.accountId,
      memberId,
      network: link.network,
      uid,
      tokenSealed: cipher.seal(token),
      valid: link.valid ?? true,
    });
  }
  if (optIn) expect((await t.rest(app, 'POST', '/optin', { id: memberId, segment })).status).toBe(200);
  return { memberId, uid: `${links[0]?.network}-${next}` };
}

/** Polls the job through the REST read until it is done. */
async function finished(jobId: string) {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const response = await t.rest(app, 'GET', `/segment/${segment}/presave/${jobId}`);
    expect(response.status, response.body).toBe(200);
    const job = response.json;
    if (job.Status === 'done') return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`presave job ${jobId} did not finish`);
}

const savesOf = (uid: string) => fake.saves.filter((save) => save.uid === uid).map((save) => save.item);

describe('saveToLibrary', () => {
  it('saves tracks and albums on Spotify and Deezer; other networks have no library', async () => {
    const adapters = createNetworkAdapters({ baseUrls: fake.baseUrls });
    const spotifyUser = fake.addUser({ network: 'spotify', uid: 'lib-s', token: 'lib-s-token' });
    const deezerUser = fake.addUser({ network: 'deezer', uid: 'lib-d', token: 'lib-d-token' });
    await adapters.get('spotify')!.saveToLibrary!({ token: spotifyUser.token, uid: spotifyUser.uid }, { kind: 'album', id: 'a1' });
    await adapters.get('deezer')!.saveToLibrary!({ token: deezerUser.token, uid: deezerUser.uid }, { kind: 'track', id: '42' });
    expect(savesOf('lib-s')).toEqual(['album:a1']);
    expect(savesOf('lib-d')).toEqual(['track:42']);
    for (const network of ['spotify', 'deezer'] as const) {
      const error = await adapters.get(network)!.saveToLibrary!({ token: 'nope', uid: 'x' }, { kind: 'track', id: '1' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).reason).toBe('invalid_credentials');
    }
    const others = externalNetworks.filter((network) => network !== 'spotify' && network !== 'deezer');
    for (const network of others) expect(typeof adapters.get(network)!.saveToLibrary, network).toBe('undefined');
  });
});

describe('POST /v1.1/segment/[id]/presave', () => {
  it('saves for every opted-in member with a valid music link, and reports each member', async () => {
    const saved = await fan([{ network: 'spotify' }]);
    const onDeezer = await fan([{ network: 'deezer' }]);
    const refused = await fan([{ network: 'spotify', refused: true }]);
    const noMusic = await fan([]);
    const invalid = await fan([{ network: 'spotify', valid: false }]);
    const both = await fan([{ network: 'spotify' }, { network: 'deezer' }]);
    const optedOut = await fan([{ network: 'spotify' }]);
    await t.rest(app, 'POST', '/optout', { id: optedOut.memberId, segment });
    await fan([{ network: 'spotify' }], false);

    const started = await t.rest(app, 'POST', `/segment/${segment}/presave`, { spotify: `https://open.spotify.com/track/${track}`, deezer: '3135556' });
    expect(started.status, started.body).toBe(200);
    expect(started.json).toMatchObject({
      ID: expect.stringMatching(/^\d+$/),
      SegmentID: segment,
      Status: 'queued',
      Runs: '0',
      Items: [
        { Service: 'spotify', Type: 'track', ID: track },
        { Service: 'deezer', Type: 'track', ID: '3135556' },
      ],
      Started: null,
      Finished: null,
      Results: [],
    });
    const job = await finished(started.json.ID);
    expect(job).toMatchObject({ Status: 'done', Runs: '1', Saved: '4', Skipped: '2', Failed: '1', Pending: '0' });
    expect(job.Results).toEqual([
      { MemberID: String(saved.memberId), Service: 'spotify', Status: 'saved', Reason: null },
      { MemberID: String(onDeezer.memberId), Service: 'deezer', Status: 'saved', Reason: null },
      { MemberID: String(refused.memberId), Service: 'spotify', Status: 'failed', Reason: expect.stringContaining('Spotify refused the stored token') },
      { MemberID: String(noMusic.memberId), Service: null, Status: 'skipped', Reason: 'no valid Spotify or Deezer link' },
      { MemberID: String(invalid.memberId), Service: null, Status: 'skipped', Reason: 'no valid Spotify or Deezer link' },
      { MemberID: String(both.memberId), Service: 'deezer', Status: 'saved', Reason: null },
      { MemberID: String(both.memberId), Service: 'spotify', Status: 'saved', Reason: null },
    ]);
    expect(savesOf(saved.uid)).toEqual([`track:${track}`]);
    expect(savesOf(onDeezer.uid)).toEqual(['track:3135556']);
    expect(savesOf(optedOut.uid)).toEqual([]);

    // The member signs in again (the fake now knows the token): a retry saves for them alone.
    fake.addUser({ network: 'spotify', uid: refused.uid, token: `${refused.uid}-token` });
    const retried = await t.rest(app, 'POST', `/segment/${segment}/presave/${job.ID}/retry`);
    expect(retried.status, retried.body).toBe(200);
    const again = await finished(job.ID);
    expect(again).toMatchObject({ Runs: '2', Saved: '5', Skipped: '2', Failed: '0' });
    expect(savesOf(refused.uid)).toEqual([`track:${track}`]);
    expect(savesOf(saved.uid)).toEqual([`track:${track}`]);
    expect(fake.saves.filter((save) => save.uid !== 'lib-s' && save.uid !== 'lib-d')).toHaveLength(5);

    // The same track again in a new job: nobody is saved twice; a new member is.
    const late = await fan([{ network: 'spotify' }]);
    const second = await finished((await t.rest(app, 'POST', `/segment/${segment}/presave`, { spotify: `spotify:track:${track}` })).json.ID);
    expect(second.Results.find((r: { MemberID: string }) => r.MemberID === String(saved.memberId))).toEqual({
      MemberID: String(saved.memberId),
      Service: 'spotify',
      Status: 'skipped',
      Reason: `already saved by presave job ${job.ID}`,
    });
    expect(second.Results.find((r: { MemberID: string }) => r.MemberID === String(late.memberId))).toMatchObject({ Status: 'saved' });
    expect(savesOf(saved.uid)).toEqual([`track:${track}`]);
    expect(savesOf(late.uid)).toEqual([`track:${track}`]);
  });

  it('reports a network that is down as failed, for a retry', async () => {
    const tenantSegment = (await t.rest(app, 'POST', '/segment/create', { name: 'Outage' })).json.ID;
    const member = await fan([{ network: 'spotify' }], false);
    await t.rest(app, 'POST', '/optin', { id: member.memberId, segment: tenantSegment });
    fake.failWith('spotify', 503);
    const started = (await t.rest(app, 'POST', `/segment/${tenantSegment}/presave`, { spotify: track, type: 'album' })).json;
    expect(started.Items).toEqual([{ Service: 'spotify', Type: 'album', ID: track }]);
    let job = started;
    for (let i = 0; i < 200 && job.Status !== 'done'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      job = (await t.rest(app, 'GET', `/segment/${tenantSegment}/presave/${started.ID}`)).json;
    }
    fake.failWith('spotify', undefined);
    expect(job.Results).toEqual([{ MemberID: String(member.memberId), Service: 'spotify', Status: 'failed', Reason: expect.stringContaining('503') }]);
  });

  it('refuses bad input, filter segments, other accounts and basic plans, writing no job', async () => {
    const count = async () => (await t.database.db.select({ n: sql<number>`count(*)::int` }).from(presaveJobs))[0].n;
    const before = await count();
    const filterSegment = (await t.rest(app, 'POST', '/segment/create', { name: 'F', type: 'filter', filter: '{}' })).json.ID;
    const theirs = (await t.rest(stranger, 'POST', '/segment/create', { name: 'Theirs' })).json.ID;
    const cases = [
      [app, `/segment/${segment}/presave`, {}, 400, 3, 'spotify'],
      [app, `/segment/${segment}/presave`, { spotify: 'https://example.com/track/1' }, 400, 4, 'spotify'],
      [app, `/segment/${segment}/presave`, { deezer: 'https://www.deezer.com/artist/27' }, 400, 4, 'deezer'],
      [app, `/segment/${segment}/presave`, { spotify: track, type: 'playlist' }, 400, 4, 'type'],
      [app, `/segment/${filterSegment}/presave`, { spotify: track }, 400, 4, 'id'],
      [app, '/segment/999999/presave', { spotify: track }, 404, 5, 'id'],
      [app, `/segment/${theirs}/presave`, { spotify: track }, 404, 5, 'id'],
      [basic, `/segment/${segment}/presave`, { spotify: track }, 403, 9, null],
    ] as const;
    for (const [tenant, path, query, status, code, param] of cases) {
      const response = await t.rest(tenant, 'POST', path, query);
      expect(response.status, `${path} ${JSON.stringify(query)}: ${response.body}`).toBe(status);
      expect(response.json.error).toMatchObject({ code, param });
    }
    expect(await count()).toBe(before);
    const [job] = await t.database.db.select().from(presaveJobs).where(eq(presaveJobs.accountId, app.accountId)).limit(1);
    // A run holds the job (as if it were running now): a retry waits for it.
    await t.database.db.update(presaveJobs).set({ status: 'running', startedAt: new Date() }).where(eq(presaveJobs.id, job.id));
    const busy = await t.rest(app, 'POST', `/segment/${segment}/presave/${job.id}/retry`);
    expect(busy.status).toBe(409);
    expect(busy.json.error).toMatchObject({ code: 17, param: 'jobId' });
    await t.database.db.update(presaveJobs).set({ status: 'done' }).where(eq(presaveJobs.id, job.id));
    expect((await t.rest(basic, 'POST', `/segment/${segment}/presave/${job.id}/retry`)).json.error.code).toBe(9);
    for (const [tenant, path] of [
      [stranger, `/segment/${segment}/presave/${job.id}`],
      [app, `/segment/${filterSegment}/presave/${job.id}`],
    ] as const) {
      const response = await t.rest(tenant, 'GET', path);
      expect(response.status).toBe(404);
      expect(response.json.error.code).toBe(5);
    }
  });

  it('is readable through GraphQL', async () => {
    const [job] = await t.database.db.select().from(presaveJobs).where(eq(presaveJobs.accountId, app.accountId)).limit(1);
    const result = await t.graphql(app.apiKey, 'query($s: ID!, $id: ID!) { presaveJob(segmentId: $s, id: $id) { status counts { saved } items { network kind } } }', {
      s: segment,
      id: String(job.id),
    });
    expect(result.body.data.presaveJob).toEqual({
      status: 'DONE',
      counts: { saved: 5 },
      items: [
        { network: 'spotify', kind: 'TRACK' },
        { network: 'deezer', kind: 'TRACK' },
      ],
    });
  });
});
