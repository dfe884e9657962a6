import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locate } from '../../src/lib/geoip.js';
import { requirableFields, SignInProfileField, type RequirableField } from '../../src/modules/widget/widget.profile.js';
import { startTestGateway, type Tenant, type TestGateway } from '../support/gateway.js';
import { CookieJar, submitForm, tokenOf, whitelist } from './support.js';

/**
 * The profile fields of the hosted pages: what the registration form marks optional or required is
 * what the server enforces, and the country is a list of countries.
 */
let t: TestGateway;
const site = 'https://fans.example.com/welcome';
const publicIp = '8.8.8.8';

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const uniqueEmail = () => `form${++counter}-${Date.now()}@example.com`;
const back = `return=${encodeURIComponent(site)}`;
const registerUrl = (tenant: Tenant) => `/framework/flow/${tenant.applicationId}/register?${back}`;
const loginUrl = (tenant: Tenant) => `/framework/flow/${tenant.applicationId}/login?${back}`;
const credentials = () => ({ email: uniqueEmail(), password: 'correct horse' });

/** GraphQL's name of a member field: firstName is FIRST_NAME. */
const graphqlName = (field: string) => Object.entries(SignInProfileField).find(([, value]) => (value as string) === field)![0];

async function tenantRequiring(fields: string[]): Promise<Tenant> {
  const tenant = await t.tenant('advanced');
  await whitelist(t, tenant, 'fans.example.com');
  const set = await t.graphql(tenant.apiKey, 'mutation($f: [SignInProfileField!]!) { setRequiredFields(fields: $f) { requiredFields } }', { f: fields.map(graphqlName) });
  expect(set.body.errors).toBeUndefined();
  return tenant;
}

async function memberOf(tenant: Tenant, location: string | undefined) {
  const response = await t.request({ method: 'POST', url: `/v1.1/auth?${new URLSearchParams({ apiKey: tenant.apiKey, accessToken: tokenOf(location) })}` });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

/** The country list of a page: its options in order, and which is selected. */
function countryList(page: string) {
  const select = /<select id="country" name="country"([^>]*)>(.*?)<\/select>/s.exec(page);
  if (!select) throw new Error('no country list on the page');
  const options = [...select[2].matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)];
  return {
    attributes: select[1],
    options: options.map(([, code, , name]) => ({ code, name })),
    selected: options.find((option) => option[2])?.[1],
  };
}

const labelOf = (page: string, field: string) => new RegExp(`<label for="${field}">([^<]*)(<span class="hint">Optional</span>)?</label>`).exec(page);

describe('what the registration form marks optional', () => {
  it('is not asked again as required: a field the application requires is required on the form itself', async () => {
    const tenant = await tenantRequiring(['firstName']);
    // Left empty as the form allows…
    const jar = new CookieJar();
    const empty = await submitForm(t, jar, registerUrl(tenant), { ...credentials(), firstName: '' });
    // …it must not be asked again on a second page: the form itself says it is required and refuses it empty.
    expect(empty.headers.location ?? '').not.toContain('/complete');
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('Fill in first name.');
    expect(empty.body).toMatch(/<label for="firstName">First name<\/label>/);
    expect(empty.body).toMatch(/<input id="firstName" name="firstName"[^>]* required/);
    const done = await submitForm(t, jar, registerUrl(tenant), { ...credentials(), firstName: 'Ada' });
    expect(done.statusCode).toBe(303);
    expect(tokenOf(done.headers.location as string)).toBeTruthy();
  });

  it('agrees with the server for every field an application may require', async () => {
    const names = Object.keys(requirableFields) as RequirableField[];
    const tenant = await tenantRequiring(names);
    const page = (await t.request({ url: registerUrl(tenant) })).body;
    for (const name of names) {
      expect(labelOf(page, name)?.[2], `${name} is marked optional`).toBeUndefined();
      expect(page, name).toMatch(new RegExp(`id="${name}" name="${name}"[^>]* required`));
      expect(page).not.toContain('Optional');
    }
    // Each one left empty is refused with its own message, on the form.
    const filled = { firstName: 'Ada', surname: 'Lovelace', username: 'ada', birthDate: '1990-12-10', gender: 'F', city: 'London', country: 'GB', postCode: 'N1 9GU' };
    for (const name of names) {
      const refused = await submitForm(t, new CookieJar(), registerUrl(tenant), { ...credentials(), ...filled, [name]: '' });
      expect(refused.statusCode, name).toBe(400);
      expect(refused.body).toContain(requirableFields[name].ask);
      expect(refused.body, name).toMatch(new RegExp(`id="${name}" name="${name}"[^>]* aria-invalid="true"`));
    }
    // All filled in: straight back to the site, nothing asked again.
    const done = await submitForm(t, new CookieJar(), registerUrl(tenant), { ...credentials(), ...filled });
    expect(done.statusCode, done.body).toBe(303);
    expect(new URL(done.headers.location as string).origin).toBe('https://fans.example.com');
    expect(await memberOf(tenant, done.headers.location as string)).toMatchObject({ FirstName: 'Ada', Surname: 'Lovelace', Country: 'GB', Gender: 'F', City: 'London' });
  });

  it('lets an optional field stay empty without asking for it later', async () => {
    const tenant = await tenantRequiring(['surname']);
    const page = (await t.request({ url: registerUrl(tenant) })).body;
    expect(labelOf(page, 'firstName')?.[2]).toBeDefined();
    expect(labelOf(page, 'country')?.[2]).toBeDefined();
    expect(labelOf(page, 'surname')?.[2]).toBeUndefined();
    const { email, password } = credentials();
    const done = await submitForm(t, new CookieJar(), registerUrl(tenant), { email, password, surname: 'Hopper', firstName: '', country: '' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toContain('accesstoken=');
    // Signing in again goes straight back too.
    const again = await submitForm(t, new CookieJar(), loginUrl(tenant), { email, password });
    expect(again.headers.location).toContain('accesstoken=');
  });
});

describe('the country list', () => {
  it('lists every country by English name with its alpha-2 code, and is optional unless required', async () => {
    const tenant = await tenantRequiring([]);
    const page = (await t.request({ url: registerUrl(tenant) })).body;
    const list = countryList(page);
    expect(labelOf(page, 'country')?.[2]).toBeDefined();
    expect(list.attributes).not.toContain('required');
    expect(list.options[0]).toEqual({ code: '', name: 'Choose a country' });
    const countries = list.options.slice(1);
    expect(countries.length).toBeGreaterThanOrEqual(249);
    expect(countries.every(({ code }) => /^[A-Z]{2}$/.test(code))).toBe(true);
    expect(new Set(countries.map(({ code }) => code)).size).toBe(countries.length);
    expect(countries.map(({ name }) => name)).toEqual(countries.map(({ name }) => name).sort((a, b) => a.localeCompare(b, 'en')));
    expect(countries).toContainEqual({ code: 'GB', name: 'United Kingdom' });
    expect(countries).toContainEqual({ code: 'CI', name: 'Cote d&#39;Ivoire' });
    expect(list.selected).toBeUndefined();
    expect(page).not.toContain('two-letter');

    const done = await submitForm(t, new CookieJar(), registerUrl(tenant), { ...credentials(), country: 'NZ' });
    expect((await memberOf(tenant, done.headers.location as string)).Country).toBe('NZ');
  });

  it("preselects the country of the fan's address on registration; a required list keeps no empty choice then", async () => {
    const located = (await locate(publicIp))!.country;
    const optional = await tenantRequiring([]);
    const optionalList = countryList((await t.request({ url: registerUrl(optional), remoteAddress: publicIp })).body);
    expect(optionalList.selected).toBe(located);
    expect(optionalList.options[0].code).toBe('');

    const required = await tenantRequiring(['country']);
    const requiredList = countryList((await t.request({ url: registerUrl(required), remoteAddress: publicIp })).body);
    expect(requiredList.attributes).toContain('required');
    expect(requiredList.selected).toBe(located);
    expect(requiredList.options.some(({ code }) => code === '')).toBe(false);
    // Nothing to preselect: the empty choice stays, so the first country is never chosen silently.
    const unplaced = countryList((await t.request({ url: registerUrl(required) })).body);
    expect(unplaced.options[0].code).toBe('');
    expect(unplaced.selected).toBeUndefined();
  });

  it('keeps a posted choice when the form comes back with an error, and the server still checks the code', async () => {
    const tenant = await tenantRequiring(['country']);
    const short = await submitForm(t, new CookieJar(), registerUrl(tenant), { email: uniqueEmail(), password: 'short', country: 'JP' });
    expect(short.statusCode).toBe(400);
    expect(countryList(short.body).selected).toBe('JP');
    const forged = await submitForm(t, new CookieJar(), registerUrl(tenant), { ...credentials(), country: 'Japan' });
    expect(forged.statusCode).toBe(400);
    expect(forged.body).toContain('expected an ISO 3166-1 alpha-2 code such as GB');
    expect(forged.body).toMatch(/<select id="country" name="country"[^>]* aria-invalid="true"/);
  });

  it('is what the completion step shows, after a form that did not ask for the country', async () => {
    const tenant = await tenantRequiring(['country']);
    // The application's own (embedded) form sends no country: nothing is refused there…
    const posted = await t.request({
      method: 'POST',
      url: `/framework/flow/${tenant.applicationId}/register/embedded`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://fans.example.com' },
      payload: new URLSearchParams({ ...credentials(), return: site }).toString(),
    });
    expect(posted.statusCode).toBe(303);
    const jar = new CookieJar();
    jar.absorb(posted);
    // …and the completion step asks for it, with the list.
    const completeUrl = new URL(posted.headers.location as string);
    expect(completeUrl.pathname).toBe(`/framework/flow/${tenant.applicationId}/complete`);
    const page = await t.request({ url: completeUrl.pathname + completeUrl.search, headers: { cookie: jar.header() } });
    expect(page.statusCode).toBe(200);
    const list = countryList(page.body);
    expect(list.attributes).toContain('required');
    expect(list.options[0].code).toBe('');
    expect(labelOf(page.body, 'country')?.[2]).toBeUndefined();
    const empty = await submitForm(t, jar, completeUrl.pathname + completeUrl.search, { country: '' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('Choose a country.');
    const done = await submitForm(t, jar, completeUrl.pathname + completeUrl.search, { country: 'IE' });
    expect((await memberOf(tenant, done.headers.location as string)).Country).toBe('IE');
  });
});
