import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { members, memberServices } from '../../src/db/schema/index.js';
import { createTokenCipher } from '../../src/modules/identity/token-cipher.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/**
 * A sealed secret that cannot be opened (a network token, the member access token): sealed under
 * another SECRET_KEY (rows imported from another deployment; a gateway whose own key changed
 * refuses to start, its signing keys being sealed too) or altered. The member is still shown,
 * with that secret as null, and the gateway logs which row and field it could not open. Before,
 * an unreadable network token left the response unsent (the error escaped GraphQL's execution as
 * an unhandled rejection, and the client waited until it gave up), and an unreadable access
 * token failed the member show with a 500.
 */
let t: TestGateway;
let tenant: Tenant;
const logged: Record<string, unknown>[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logged.push(JSON.parse(String(chunk)));
      done();
    },
  });
  t = await startTestGateway({}, undefined, { logSink: sink });
  tenant = await t.tenant('advanced');
});
afterAll(() => t?.close());

describe('a sealed secret that cannot be opened', () => {
  it('is answered as null, and so is an unreadable access token: the member and the rest of the link as stored, each row and field named in the log', async () => {
    const uid = `sp-${Date.now()}`;
    const registered = await t.rest(tenant, 'POST', '/member/register', { service: 'spotify', authtoken: 'token-one', authsecret: 'refresh-one', uid, email: `unreadable-${uid}@example.com` });
    expect(registered.status).toBe(200);
    const memberId = registered.json[0].data.ID;
    const linkId = registered.json[0].services.find((service: { Service: string }) => service.Service === 'spotify').ID;

    // Its token sealed under another key, its secret altered.
    const foreign = createTokenCipher('another-secret-key-of-at-least-32-characters').seal('token-of-another-deployment');
    const [stored] = await t.database.db
      .select()
      .from(memberServices)
      .where(eq(memberServices.id, Number(linkId)));
    // The ciphertext's first character: every bit of it is the ciphertext's (the last character of
    // base64url may carry unused bits, and changing only those changed nothing, one time in 16).
    const [prefix, iv, tag, ciphertext] = stored.tokenSecretSealed!.split('.');
    const altered = [prefix, iv, tag, (ciphertext[0] === 'A' ? 'B' : 'A') + ciphertext.slice(1)].join('.');
    await t.database.db
      .update(memberServices)
      .set({ tokenSealed: foreign, tokenSecretSealed: altered })
      .where(eq(memberServices.id, Number(linkId)));

    const [holder] = await t.database.db
      .select()
      .from(members)
      .where(eq(members.id, Number(memberId)));
    await t.database.db
      .update(members)
      .set({ accessTokenSealed: foreign })
      .where(eq(members.id, Number(memberId)));

    const shown = await t.rest(tenant, 'GET', `/member/${memberId}`);
    expect(shown.status).toBe(200);
    const spotify = shown.json.services.find((service: { Service: string }) => service.Service === 'spotify');
    expect(spotify).toMatchObject({ ID: linkId, UserID: uid, Token: null, TokenSecret: null });
    expect(shown.json.data.ID).toBe(memberId);
    expect(shown.json.data.AccessToken).toBeNull();

    const { body } = await t.graphql(tenant.apiKey, 'query($id: ID!) { member(lookup: { id: $id }) { id services { id network userId token tokenSecret } } }', { id: String(memberId) });
    expect(body.errors).toBeUndefined();
    expect(body.data.member.services.find((service: { network: string }) => service.network === 'spotify')).toMatchObject({ userId: uid, token: null, tokenSecret: null });

    const unreadable = logged.filter((line) => line.msg === 'A sealed secret could not be opened: it was sealed under another SECRET_KEY, or altered.');
    // A line for each secret of each answer, naming its row and field, never the sealed value.
    for (const line of unreadable) {
      expect(line.level).toBe(50);
      expect(JSON.stringify(line)).not.toMatch(/v1\./);
    }
    const ofLink = unreadable.filter((line) => line.serviceLinkId === Number(linkId));
    expect(ofLink.map((line) => line.field).sort()).toEqual(['token', 'token', 'tokenSecret', 'tokenSecret']);
    expect(unreadable.filter((line) => line.memberId === Number(memberId)).map((line) => line.field)).toEqual(['accessToken']);
    expect(unreadable).toHaveLength(ofLink.length + 1);

    // Sealed under this gateway's key again, they are answered.
    await t.database.db
      .update(memberServices)
      .set({ tokenSealed: stored.tokenSealed, tokenSecretSealed: stored.tokenSecretSealed })
      .where(eq(memberServices.id, Number(linkId)));
    await t.database.db
      .update(members)
      .set({ accessTokenSealed: holder.accessTokenSealed })
      .where(eq(members.id, Number(memberId)));
    const again = await t.rest(tenant, 'GET', `/member/${memberId}`);
    expect(again.json.data.AccessToken).toBe(registered.json[0].data.AccessToken);
    expect(again.json.services.find((service: { Service: string }) => service.Service === 'spotify')).toMatchObject({ Token: 'token-one', TokenSecret: 'refresh-one' });
  });
});
