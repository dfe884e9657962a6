import fs from 'node:fs';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../src/db/schema/index.js';
import { usernameBase } from '../../src/modules/members/usernames.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, submitForm, tokenOf, whitelist } from '../widget/support.js';

let t: TestGateway;
let app: Tenant;
let other: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
  other = await t.tenant('advanced');
  await whitelist(t, app, 'fans.example.com');
});
afterAll(() => t.close());

const local = () => `ada${process.pid}${Math.floor(Math.random() * 1e6)}`;

async function registerOverGraphql(tenant: Tenant, email: string, username?: string) {
  const { body } = await t.graphql(
    tenant.apiKey,
    `mutation ($email: String!, $username: String) {
    registerMember(input: { credentials: { network: "email", email: $email, password: "correct horse" }, profile: { username: $username } }) {
      member { id username }
    }
  }`,
    { email, username },
  );
  expect(body.errors).toBeUndefined();
  return body.data.registerMember.member as { id: string; username: string };
}

describe('usernames of members registered without one', () => {
  it("takes the address's local part, lower case, without accents or other characters", () => {
    expect(usernameBase('Ébène.O’Brien+news@example.com')).toBe('ebene.obriennews');
    expect(usernameBase('ADA_L-1@example.com')).toBe('ada_l-1');
    expect(usernameBase('+++@example.com')).toBe('member');
    expect(usernameBase(null)).toBe('member');
    expect(usernameBase(`${'x'.repeat(40)}@example.com`)).toBe('x'.repeat(30));
  });

  it('is unique per account (GraphQL and REST), not across accounts, and kept when the address changes', async () => {
    const name = local();
    const first = await registerOverGraphql(app, `${name}@example.com`);
    expect(first.username).toBe(name);
    const second = await registerOverGraphql(app, `${name.toUpperCase()}@another.example.org`);
    expect(second.username).toBe(`${name}-${second.id}`);
    const [rest] = (await t.rest(app, 'POST', '/member/register', { service: 'email', email: `${name}@third.example.net`, password: 'correct horse' })).json;
    expect(rest.data.Username).toBe(`${name}-${rest.data.ID}`);
    // Another account has its own names.
    expect((await registerOverGraphql(other, `${name}@example.com`)).username).toBe(name);
    // A name given is kept as given.
    expect((await registerOverGraphql(app, `given-${name}@example.com`, 'TheRealAda')).username).toBe('TheRealAda');

    const moved = await t.graphql(app.apiKey, `mutation ($id: ID!) { updateMember(id: $id, input: { email: "someone.else@example.com" }) { member { username } } }`, { id: first.id });
    expect(moved.body.data.updateMember.member.username).toBe(name);
  });

  it('is given to a fan registering through the hosted page, and shown to the page as Username', async () => {
    const name = local();
    const jar = new CookieJar();
    const response = await submitForm(t, jar, `/framework/flow/${app.applicationId}/register?return=${encodeURIComponent('https://fans.example.com/')}`, {
      email: `${name}@example.com`,
      password: 'correct horse',
    });
    expect(response.statusCode, response.body).toBe(303);
    const session = await t.request({ url: `/framework/session/${app.applicationId}`, headers: { origin: 'https://fans.example.com', cookie: jar.header() } });
    expect(session.json().user.data.Username).toBe(name);
    const auth = await t.rest(app, 'POST', '/auth', { accesstoken: tokenOf(response.headers.location as string) });
    expect(auth.json.data.Username).toBe(name);
  });

  it('is given to existing members by the migration, by the same rule', async () => {
    const name = local();
    const holder = await registerOverGraphql(app, `${name}@example.com`);
    const insert = (email: string) =>
      t.database.db
        .insert(members)
        .values({ accountId: app.accountId, email, accessTokenHash: `hash-${email}`, accessTokenSealed: 'sealed' })
        .returning({ id: members.id });
    const [taken] = await insert(`${name}@elsewhere.example.com`);
    const [fresh1] = await insert(`fresh${name}@example.com`);
    const [fresh2] = await insert(`FRESH${name}@example.org`);
    const [noEmail] = await t.database.db
      .insert(members)
      .values({ accountId: app.accountId, accessTokenHash: `hash-none-${name}`, accessTokenSealed: 'sealed' })
      .returning({ id: members.id });
    const migration = fs.readFileSync(new URL('../../drizzle/0029_member_usernames.sql', import.meta.url), 'utf8');
    await t.database.db.execute(sql.raw(migration));
    const nameOf = async (id: number) =>
      (
        await t.database.db
          .select({ username: members.username })
          .from(members)
          .where(and(eq(members.accountId, app.accountId), eq(members.id, id)))
      )[0].username;
    expect(await nameOf(Number(holder.id))).toBe(name);
    expect(await nameOf(taken.id)).toBe(`${name}-${taken.id}`);
    expect(await nameOf(fresh1.id)).toBe(`fresh${name}`);
    expect(await nameOf(fresh2.id)).toBe(`fresh${name}-${fresh2.id}`);
    expect(await nameOf(noEmail.id)).toMatch(/^member(-\d+)?$/);
  });
});
