import { invalidParameter } from '../../core/errors.js';
import { validateAll } from '../../core/user-errors.js';
import { jsonDepthExceeds, maxStoredJsonDepth } from '../../lib/json-depth.js';
import type { MemberRow, NewMemberRow } from './members.queries.js';
import type { MemberProfileInput, UpdateMemberInput } from './members.types.js';
import { normaliseEmail } from './members.credentials.js';

/** Longest free text a profile field keeps; longer input is refused, not cut. */
const maxTextLength = 500;

/** REST parameter names of the profile fields, for error messages. */
const restNames: Record<string, string> = {
  firstName: 'firstname',
  surname: 'surname',
  username: 'username',
  city: 'city',
  state: 'region',
  postCode: 'postcode',
  address: 'address',
  addressLine2: 'addressline2',
  homePhone: 'homephone',
  mobilePhone: 'mobilephone',
  website: 'website',
  bio: 'bio',
  country: 'country',
  birthDate: 'birthdate',
};

function text(field: string, value: string | undefined | null, max = maxTextLength): string | undefined {
  if (value === undefined || value === null) return undefined;
  const trimmed = value.trim();
  if (trimmed.length > max) throw invalidParameter(restNames[field] ?? field, `at most ${max} characters`);
  return trimmed === '' ? undefined : trimmed;
}

function countryCode(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[A-Za-z]{2}$/.test(value.trim())) throw invalidParameter('country', 'expected an ISO 3166-1 alpha-2 code such as GB');
  return value.trim().toUpperCase();
}

/** A date of birth as YYYY-MM-DD: a real calendar date (not 2023-02-30), in the past, from 1900. */
function birthDate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // A form's text reaches here as it was typed (MemberProfileFieldsInput.birthDate is a String).
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw invalidParameter('birthdate', 'expected a date as YYYY-MM-DD');
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value || date > new Date() || date.getUTCFullYear() < 1900) {
    throw invalidParameter('birthdate', 'expected a real date of birth in the past');
  }
  return value;
}

/**
 * The member columns a profile input sets; absent fields are left out, so they stay unchanged.
 * Every field is checked (validateAll): the problems come together, each under its field's name.
 */
export function profileValues(input: (Partial<Omit<MemberProfileInput, 'gender'>> & { gender?: MemberProfileInput['gender'] | null }) | undefined): Partial<NewMemberRow> {
  if (!input) return {};
  return defined(
    validateAll(
      {
        firstName: () => text('firstName', input.firstName),
        surname: () => text('surname', input.surname),
        username: () => text('username', input.username),
        gender: () => input.gender ?? undefined,
        birthDate: () => birthDate(input.birthDate ?? undefined),
        city: () => text('city', input.city),
        country: () => countryCode(input.country ?? undefined),
        state: () => text('state', input.state),
        postCode: () => text('postCode', input.postCode, 20),
      },
      (key) => [key],
    ),
  );
}

/** Update takes the profile fields and the contact fields registration does not ask for; every problem at once, each under its field's name. */
export function updateValues(input: UpdateMemberInput): Partial<NewMemberRow> {
  const { profile, ...contact } = validateAll(
    {
      profile: () => profileValues(input),
      email: () => (input.email === undefined || input.email === null ? undefined : normaliseEmail(input.email)),
      address: () => text('address', input.address),
      addressLine2: () => text('addressLine2', input.addressLine2),
      homePhone: () => text('homePhone', input.homePhone, 40),
      mobilePhone: () => text('mobilePhone', input.mobilePhone, 40),
      website: () => text('website', input.website),
      bio: () => text('bio', input.bio, 5000),
    },
    // The profile's own problems are already under their fields' names.
    (key) => (key === 'profile' ? [] : [key]),
  );
  return { ...profile, ...defined(contact) };
}

/** Every problem of an update's input at once: its fields, then its custom fields (under `extended`). */
export function updateChecks(input: UpdateMemberInput): { values: Partial<NewMemberRow>; extended: Record<string, unknown> | undefined } {
  return validateAll({ values: () => updateValues(input), extended: () => extendedFields(input.extended) }, (key) => (key === 'values' ? [] : [key]));
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * Custom fields to merge into the Extended node, nested at most as deep as a record's `content`
 * (lib/json-depth.ts): jsonb's functions recurse on nesting, and a value thousands deep would fail
 * in the database as an internal error instead of being refused here.
 */
export function extendedFields(value: Record<string, unknown> | undefined | null): Record<string, unknown> | undefined {
  if (!value) return undefined;
  if (jsonDepthExceeds(value, maxStoredJsonDepth)) throw invalidParameter('extended', `expected a JSON object nested at most ${maxStoredJsonDepth} levels deep`);
  return value;
}

/** The names of the fields `written` changes on `before` (custom fields as `extended.<name>`): what a profile change's audit entry lists. */
export function changedFields(before: MemberRow, written: Partial<NewMemberRow>): string[] {
  const fields: string[] = [];
  for (const [name, value] of Object.entries(written)) {
    if (name === 'extended') {
      const old = before.extended ?? {};
      const next = (value ?? {}) as Record<string, unknown>;
      for (const key of Object.keys(next)) if (JSON.stringify(old[key]) !== JSON.stringify(next[key])) fields.push(`extended.${key}`);
      continue;
    }
    if (comparable((before as Record<string, unknown>)[name]) !== comparable(value)) fields.push(name);
  }
  return fields.sort();
}

/** A profile value as text to compare (null and empty alike: an empty field is stored as null). */
function comparable(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
