import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { CookieJar, submitForm, tokenOf, whitelist } from '../widget/support.js';

/**
 * A reset ends the logins in flight (docs/members.md, "What a sign-in checks and mints against"):
 * old-password logins racing one `member/[id]/reset`, through every door that checks a password
 * (REST and GraphQL login, a registration of the registered address, the hosted sign-in page, the
 * on-page form), leave no credential alive once all have settled: no JWT, access token, widget
 * session or sign-in token. Three interleavings, each round a new member (and account, so that no
 * sign-in budget is shared between rounds):
 * - `checked`: every login has checked the old password and waits; the reset commits; they go on.
 * - `minting`: every widget sign-in has signed in and waits before minting its session or token;
 *   the reset commits; they go on (the REST and GraphQL logins ran to the end before the reset).
 * - `free`: all at once, the reset started a few milliseconds after the logins.
 * The waits are test-only wrappers around the password check and the widget's two inserts. The
 * other doors that mint from a credential read earlier, `trigger.login`'s access token and a live
 * session skipping the form, are raced with a reset the `minting` way.
 */

const gates = vi.hoisted(() => ({ afterCheck: undefined as Promise<void> | undefined, checked: 0, beforeMint: undefined as Promise<void> | undefined, minting: 0 }));

vi.mock('../../src/modules/identity/passwords.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/modules/identity/passwords.js')>();
  return {
    ...real,
    async verifyPassword(stored: string, password: string) {
      const result = await real.verifyPassword(stored, password);
      gates.checked += 1;
      if (gates.afterCheck) await gates.afterCheck;
      return result;
    },
  };
});

vi.mock('../../src/modules/widget/widget.queries.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/modules/widget/widget.queries.js')>();
  const parked =
    <A extends unknown[], R>(insert: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      gates.minting += 1;
      if (gates.beforeMint) await gates.beforeMint;
      return insert(...args);
    };
  return { ...real, insertSession: parked(real.insertSession), insertSignInToken: parked(real.insertSignInToken) };
});

let t: TestGateway;
beforeAll(async () => {
  // The sign-ins a round holds at its gates must leave the reset a slot of their key (http/request-slots.ts).
  t = await startTestGateway({ REQUESTS_PER_KEY: '16', REQUESTS_PER_ACCOUNT: '16' });
});
afterAll(() => t.close());

const origin = 'https://fans.example.com';
const site = `${origin}/welcome`;
const oldPassword = 'the old password';
const newPassword = 'the new password';
/**
 * Concurrent old-password sign-ins per round, the doors taken in turn. Six: the sign-in throttle
 * admits five attempts of one identity at once and a sixth holding it (login-throttle.ts); more
 * would be refused RATE_LIMITED before checking anything.
 */
const perRound = 6;
const rounds = 20;

type Mode = 'checked' | 'minting' | 'free';
type Kind = 'jwt' | 'accessToken' | 'session' | 'signInToken';

/** What one sign-in obtained: any of it that still answers after the round is a survivor. */
interface Obtained {
  door: string;
  jwt?: string;
  accessToken?: string;
  jar?: CookieJar;
  signInToken?: string;
}

let counter = 0;

async function newMember() {
  const app = await t.tenant('advanced');
  await whitelist(t, app, 'fans.example.com');
  const email = `race${++counter}-${Date.now()}@example.com`;
  const registered = await t.rest(app, 'POST', '/member/register', { service: 'email', email, password: oldPassword });
  expect(registered.status, registered.body).toBe(200);
  const id = registered.json[0].data.ID as number;
  const services = await t.graphql(app.apiKey, 'query($id: ID!) { member(lookup: { id: $id }) { services { id network } } }', { id: String(id) });
  const serviceId = services.body.data.member.services.find((service: { network: string }) => service.network === 'email').id as string;
  return { app, id, email, serviceId };
}
type Member = Awaited<ReturnType<typeof newMember>>;

/** The doors that check a password, each answering what it minted (nothing when refused). */
function doors(member: Member): Record<string, () => Promise<Obtained>> {
  const { app, email } = member;
  return {
    async restLogin() {
      const answer = await t.rest(app, 'POST', '/member/login', { service: 'email', email, password: oldPassword });
      if (answer.status !== 200) expect([6, 15, 18], answer.body).toContain(answer.json.error.code);
      return { door: 'rest login', jwt: answer.json.jwt, accessToken: answer.json.data?.AccessToken };
    },
    async graphqlLogin() {
      const answer = await t.graphql(app.apiKey, 'mutation($input: LoginInput!) { login(input: $input) { jwt member { accessToken } } }', {
        input: { credentials: { network: 'email', email, password: oldPassword } },
      });
      const login = answer.body.data?.login;
      if (!login) expect(['WRONG_PASSWORD', 'INVALID_TOKEN', 'RATE_LIMITED'], answer.text).toContain(answer.body.errors[0].extensions.code);
      return { door: 'graphql login', jwt: login?.jwt, accessToken: login?.member.accessToken };
    },
    async registration() {
      const answer = await t.rest(app, 'POST', '/member/register', { service: 'email', email, password: oldPassword });
      if (answer.status !== 200) expect([6, 17], answer.body).toContain(answer.json.error.code);
      return { door: 'registration', jwt: answer.json[0]?.jwt, accessToken: answer.json[0]?.data.AccessToken };
    },
    async hostedPage() {
      const jar = new CookieJar();
      const answer = await submitForm(t, jar, `/framework/flow/${app.applicationId}/login?return=${encodeURIComponent(site)}`, { email, password: oldPassword });
      if (answer.statusCode !== 303) expect([401, 429], answer.body).toContain(answer.statusCode);
      return { door: 'hosted page', jar, signInToken: answer.statusCode === 303 ? tokenOf(answer.headers.location) : undefined };
    },
    async onPage() {
      const jar = new CookieJar();
      const answer = await t.request({
        method: 'POST',
        url: `/framework/session/${app.applicationId}/email`,
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ type: 'login', email, password: oldPassword, return: site }).toString(),
      });
      jar.absorb(answer);
      if (answer.statusCode !== 200) expect([6, 15, 18], answer.body).toContain(answer.json().error.code);
      return { door: 'on-page form', jar, signInToken: answer.statusCode === 200 ? answer.json().accesstoken : undefined };
    },
  };
}

const viewer = (jwt: string) => t.request({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, payload: { query: '{ viewer { id } }' } });

/** The credentials of `obtained` that still answer for the member. */
async function survivors(member: Member, obtained: Obtained): Promise<Kind[]> {
  const alive: Kind[] = [];
  if (obtained.jwt && (await viewer(obtained.jwt)).json().data?.viewer) alive.push('jwt');
  if (obtained.accessToken && (await t.rest(member.app, 'POST', '/auth', { accesstoken: obtained.accessToken })).status === 200) alive.push('accessToken');
  if (obtained.jar) {
    const session = await t.request({ url: `/framework/session/${member.app.applicationId}`, headers: { cookie: obtained.jar.header(), origin } });
    if (session.json().user) alive.push('session');
  }
  if (obtained.signInToken && (await t.rest(member.app, 'POST', '/auth', { accesstoken: obtained.signInToken })).status === 200) alive.push('signInToken');
  return alive;
}

async function until(done: () => boolean, what: string) {
  for (const started = Date.now(); !done(); await new Promise((resolve) => setTimeout(resolve, 2))) {
    if (Date.now() - started > 20_000) throw new Error(`timed out waiting for ${what}`);
  }
}

/** One round: the sign-ins and the reset as `mode` interleaves them; the credentials that survive. */
async function round(mode: Mode, index: number): Promise<{ kind: Kind; door: string }[]> {
  const member = await newMember();
  const all = Object.values(doors(member));
  const chosen = Array.from({ length: perRound }, (_, index) => all[index % all.length]);
  let finished = 0;
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  gates.checked = 0;
  gates.minting = 0;
  if (mode === 'checked') gates.afterCheck = gate;
  if (mode === 'minting') gates.beforeMint = gate;
  const signIns = chosen.map((door) => door().finally(() => (finished += 1)));
  const settled = Promise.allSettled(signIns);
  try {
    // Waits until each sign-in has checked the password (or the widget's, reached its mint), or ended without.
    if (mode === 'checked') await until(() => gates.checked + finished >= perRound, 'the password checks');
    if (mode === 'minting') await until(() => gates.minting + finished >= perRound, 'the widget sign-ins to mint');
    if (mode === 'free') await new Promise((resolve) => setTimeout(resolve, (index % 5) * 8));
    const reset = await t.rest(member.app, 'POST', `/member/${member.id}/reset`, { email: member.email, password: newPassword, member_service_id: member.serviceId });
    expect(reset.status, reset.body).toBe(200);
    // The reset's own credentials answer: a survivor check that finds nothing finds nothing for a reason.
    expect((await viewer(reset.json.jwt)).json().data.viewer).toEqual({ id: String(member.id) });
  } finally {
    gates.afterCheck = undefined;
    gates.beforeMint = undefined;
    release();
  }
  const results = await settled;
  const found: { kind: Kind; door: string }[] = [];
  for (const result of results) {
    if (result.status === 'rejected') throw result.reason;
    for (const kind of await survivors(member, result.value)) found.push({ kind, door: result.value.door });
  }
  return found;
}

describe('a password reset racing old-password sign-ins', () => {
  it(`leaves no credential alive: ${rounds} rounds of ${perRound} sign-ins (REST, GraphQL, registration, hosted page, on-page form)`, { timeout: 300_000 }, async () => {
    const modes: Mode[] = ['checked', 'minting', 'free'];
    const tally: Record<Kind, number> = { jwt: 0, accessToken: 0, session: 0, signInToken: 0 };
    const byMode: Record<Mode, number> = { checked: 0, minting: 0, free: 0 };
    for (let index = 0; index < rounds; index += 1) {
      const mode = modes[index % modes.length];
      const found = await round(mode, index);
      byMode[mode] += found.length;
      for (const { kind } of found) tally[kind] += 1;
    }
    expect({ tally, byMode }).toEqual({ tally: { jwt: 0, accessToken: 0, session: 0, signInToken: 0 }, byMode: { checked: 0, minting: 0, free: 0 } });
  });
});

describe('a reset while a session or sign-in token is minted from an earlier credential', () => {
  /** Runs `mint` until it waits at the widget's insert, commits a reset, lets it go on: its answer. */
  async function resetWhileMinting<T>(member: Member, mint: () => Promise<T>): Promise<T> {
    let release = () => {};
    gates.minting = 0;
    gates.beforeMint = new Promise<void>((resolve) => (release = resolve));
    const answer = mint();
    try {
      await until(() => gates.minting >= 1, 'the mint');
      const reset = await t.rest(member.app, 'POST', `/member/${member.id}/reset`, { email: member.email, password: newPassword, member_service_id: member.serviceId });
      expect(reset.status, reset.body).toBe(200);
    } finally {
      gates.beforeMint = undefined;
      release();
    }
    return answer;
  }

  it('trigger.login with the access token read before the reset starts no session (code 15)', async () => {
    const member = await newMember();
    const login = await t.rest(member.app, 'POST', '/member/login', { service: 'email', email: member.email, password: oldPassword });
    const jar = new CookieJar();
    const answer = await resetWhileMinting(member, () =>
      t.request({
        method: 'POST',
        url: `/framework/session/${member.app.applicationId}/token`,
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ accesstoken: login.json.data.AccessToken }).toString(),
      }),
    );
    jar.absorb(answer);
    expect(answer.statusCode, answer.body).toBe(401);
    expect(answer.json().error).toMatchObject({ code: 15 });
    expect(await survivors(member, { door: 'trigger.login', jar })).toEqual([]);
  });

  it('a live session checked before the reset mints no sign-in token', async () => {
    const member = await newMember();
    const jar = new CookieJar();
    const loginUrl = `/framework/flow/${member.app.applicationId}/login?return=${encodeURIComponent(site)}`;
    expect((await submitForm(t, jar, loginUrl, { email: member.email, password: oldPassword })).statusCode).toBe(303);
    const again = await resetWhileMinting(member, () => t.request({ url: loginUrl, headers: { cookie: jar.header() } }));
    expect(again.statusCode, again.headers.location as string).toBe(401);
    expect(again.headers.location).toBeUndefined();
    expect(await survivors(member, { door: 'live session', jar })).toEqual([]);
  });
});
