import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

let t: TestGateway;
let app: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  app = await t.tenant('advanced');
});
afterAll(() => t.close());

const graphqlLogin = (email: string, password: string) =>
  t.graphql(
    app.apiKey,
    `mutation ($email: String!, $password: String!) {
    login(input: { credentials: { network: "email", email: $email, password: $password } }) { member { id } }
  }`,
    { email, password },
  );

describe('a password is the same on both surfaces', () => {
  // Spaces are characters of a password: neither surface trims them.
  const spaced = '  two spaces each side  ';

  it('registered by REST with spaces around it, it signs in by GraphQL and REST only as sent', async () => {
    const email = `spaced-${randomUUID()}@example.com`;
    expect((await t.rest(app, 'POST', '/member/register', { service: 'email', email, password: spaced })).status).toBe(200);
    expect((await graphqlLogin(email, spaced)).body.errors).toBeUndefined();
    expect((await t.rest(app, 'POST', '/member/login', { service: 'email', email, password: spaced })).status).toBe(200);
    expect((await t.rest(app, 'POST', '/member/login', { service: 'email', email, password: spaced.trim() })).json.error.code).toBe(18);
    expect((await graphqlLogin(email, spaced.trim())).body.errors[0].extensions.code).toBe('WRONG_PASSWORD');
  });

  it('registered by GraphQL with spaces around it, it signs in by REST as sent', async () => {
    const email = `spaced-${randomUUID()}@example.com`;
    const registered = await t.graphql(
      app.apiKey,
      `mutation ($email: String!, $password: String!) {
      registerMember(input: { credentials: { network: "email", email: $email, password: $password } }) { created }
    }`,
      { email, password: spaced },
    );
    expect(registered.body.errors).toBeUndefined();
    expect((await t.rest(app, 'POST', '/member/login', { service: 'email', email, password: spaced })).status).toBe(200);
    // A form body is read the same way as the query string.
    const form = await t.rest(
      app,
      'POST',
      '/member/login',
      {},
      {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ service: 'email', email, password: spaced }).toString(),
      },
    );
    expect(form.status, form.body).toBe(200);
  });

  it('a reset by REST keeps the spaces too', async () => {
    const email = `spaced-${randomUUID()}@example.com`;
    const created = await t.rest(app, 'POST', '/member/register', { service: 'email', email, password: 'first password' });
    // Registration answers its envelope inside a one-element array.
    const [{ data: member, services }] = created.json;
    const serviceId = services.find((service: { Service: string }) => service.Service === 'email').ID;
    const reset = await t.rest(app, 'POST', `/member/${member.ID}/reset`, { email, password: spaced, member_service_id: serviceId });
    expect(reset.status, reset.body).toBe(200);
    expect((await graphqlLogin(email, spaced)).body.errors).toBeUndefined();
  });

  it('an empty password is still missing on REST, as on GraphQL', async () => {
    const email = `spaced-${randomUUID()}@example.com`;
    expect((await t.rest(app, 'POST', '/member/register', { service: 'email', email, password: '' })).json.error).toMatchObject({ code: 3, param: 'password' });
  });
});
