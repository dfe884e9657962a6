import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { makers } from './world.js';

/** GraphQL lets a caller send null for any optional input field: null is refused or ignored, never an internal error. */
let t: TestGateway;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('advanced');
});
afterAll(() => t.close());

describe('explicit nulls', () => {
  it('editActivity(input: { type: null }) answers code 4 naming the type, and changes nothing', async () => {
    const id = await makers(t, tenant, 'nulls').activity();
    const { status, body } = await t.graphql(tenant.apiKey, 'mutation ($id: ID!) { editActivity(id: $id, input: { type: null, name: "Renamed" }) { id name type } }', { id });
    expect(status).toBe(400);
    expect(body.errors[0].extensions).toMatchObject({ code: 'INVALID_PARAMETER', aeCode: 4, param: 'type' });
    const { body: after } = await t.graphql(tenant.apiKey, '{ activities { id name type } }');
    expect(after.data.activities.find((activity: { id: string }) => activity.id === id).type).toBe('Custom');
  });
});
