import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';

/** Refusals made by Fastify's router before any route runs still answer the documented error body. */
let t: TestGateway;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestGateway();
  tenant = await t.tenant('advanced');
});
afterAll(() => t.close());

const errorBody = { error: { code: 4, type: 'INVALID_PARAMETER', message: expect.any(String), param: null } };

describe("the router's refusals", () => {
  it('a path parameter over 100 characters answers 400 with the error body', async () => {
    const response = await t.request({ url: `/v1.1/member/${'9'.repeat(150)}`, headers: { 'x-api-key': tenant.apiKey } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(errorBody);
  });

  it('a malformed percent-encoding in the path answers 400 with the error body', async () => {
    const response = await t.request({ url: '/v1.1/member/%E0%A4%A', headers: { 'x-api-key': tenant.apiKey } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(errorBody);
  });
});
