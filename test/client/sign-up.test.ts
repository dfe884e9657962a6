import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { members } from '../../src/db/schema/index.js';
import { SignInDocument, SignUpDocument, ViewerDocument } from './generated/graphql.js';
import { startClientGateway, type ClientGateway } from './support.js';

/** Screen (e): a sign-up form and a sign-in form, whose every field error comes in one 200 answer. */
let g: ClientGateway;

beforeAll(async () => {
  g = await startClientGateway();
}, 120_000);

afterAll(() => g?.close());

async function membersOfAccount(): Promise<number> {
  const [row] = await g.t.database.db
    .select({ count: sql<number>`count(*)::int` })
    .from(members)
    .where(eq(members.accountId, g.tenant.accountId));
  return row.count;
}

describe('a sign-up form', () => {
  it('shows every field error from one answer, in HTTP 200, with nothing written', async () => {
    const before = g.statuses.length;
    const { data } = await g.client().mutate({
      mutation: SignUpDocument,
      variables: { input: { credentials: { network: 'email', email: 'not-an-address', password: 'short' }, profile: { birthDate: '1815-13-40', country: 'XYZ' } } },
    });
    expect(data!.memberRegister).toMatchObject({ created: null, member: null, session: null });
    expect(data!.memberRegister!.userErrors.map(({ field, code }) => ({ field, code }))).toEqual([
      { field: ['input', 'credentials', 'email'], code: 'INVALID' },
      { field: ['input', 'credentials', 'password'], code: 'INVALID' },
      { field: ['input', 'profile', 'birthDate'], code: 'INVALID' },
      { field: ['input', 'profile', 'country'], code: 'INVALID' },
    ]);
    expect(g.statuses.slice(before)).toEqual([200]);
    expect(await membersOfAccount()).toBe(0);
  });

  it('signs a valid form up, its session reads the fan on their own page, and a wrong password is a user error in 200, not a 401', async () => {
    const email = `form-${Date.now()}@example.com`;
    const { data } = await g.client().mutate({
      mutation: SignUpDocument,
      variables: { input: { credentials: { network: 'email', email, password: 'correct horse' }, profile: { firstName: 'Ada', birthDate: '1990-12-10' } } },
    });
    const registered = data!.memberRegister!;
    expect(registered).toMatchObject({ created: true, member: { firstName: 'Ada' }, userErrors: [] });
    const viewer = await g.client({ jwt: registered.session!.jwt }).query({ query: ViewerDocument });
    expect(viewer.data!.viewer).toMatchObject({ id: registered.member!.id, firstName: 'Ada' });

    const before = g.statuses.length;
    const refused = await g.client().mutate({ mutation: SignInDocument, variables: { input: { credentials: { network: 'email', email, password: 'wrong horse' } } } });
    expect(refused.data!.memberLogin).toMatchObject({ member: null, session: null });
    expect(refused.data!.memberLogin!.userErrors.map(({ field, code }) => ({ field, code }))).toEqual([{ field: ['input', 'credentials', 'password'], code: 'WRONG_PASSWORD' }]);
    expect(g.statuses.slice(before)).toEqual([200]);
  });
});
