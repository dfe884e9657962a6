import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/** Names a caller chooses are looked up among the known ones only, never on Object.prototype. */
let t: TestGateway;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('advanced');
});
afterAll(() => t.close());

describe('names that are Object.prototype members', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('GET /v1.1/members/active?order_by=%s answers 400 naming order_by', async (name) => {
    const response = await t.request({ url: `/v1.1/members/active?order_by=${name}`, headers: { 'x-api-key': tenant.apiKey } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 4, type: 'INVALID_PARAMETER', message: expect.any(String), param: 'order_by' } });
  });
});
