import { AppError, invalidParameter } from '../../core/errors.js';
import { profileValues } from '../members/members.profile.js';
import type { MemberRow } from '../members/members.queries.js';
import { Gender, type MemberProfileInput } from '../members/members.types.js';

/**
 * The profile fields an application may require of fans signing in through the hosted flow, as
 * GraphQL names them (the enum SignInProfileField, widget.types.ts); the values are the member's
 * field names, as the settings store them.
 */
export enum SignInProfileField {
  FIRST_NAME = 'firstName',
  SURNAME = 'surname',
  USERNAME = 'username',
  BIRTH_DATE = 'birthDate',
  GENDER = 'gender',
  CITY = 'city',
  COUNTRY = 'country',
  POST_CODE = 'postCode',
}

/**
 * Profile fields an application may require of fans signing in through the hosted flow, with how
 * the hosted pages ask for each (`ask`: the message when a required one is left empty).
 */
export const requirableFields = {
  firstName: { label: 'First name', type: 'text', autocomplete: 'given-name', ask: 'Fill in first name.' },
  surname: { label: 'Surname', type: 'text', autocomplete: 'family-name', ask: 'Fill in surname.' },
  username: { label: 'Username', type: 'text', autocomplete: 'username', ask: 'Fill in username.' },
  birthDate: { label: 'Date of birth', type: 'date', autocomplete: 'bday', ask: 'Fill in date of birth.' },
  gender: { label: 'Gender', type: 'gender', autocomplete: 'sex', ask: 'Choose a gender.' },
  city: { label: 'City', type: 'text', autocomplete: 'address-level2', ask: 'Fill in city.' },
  country: { label: 'Country', type: 'country', autocomplete: 'country', ask: 'Choose a country.' },
  postCode: { label: 'Post code', type: 'text', autocomplete: 'postal-code', ask: 'Fill in post code.' },
} as const satisfies Record<`${SignInProfileField}`, unknown>;

export type RequirableField = keyof typeof requirableFields;

/** One field of a hosted form, and whether the form marks it required. */
export interface FormField {
  name: RequirableField;
  required: boolean;
}

export function readRequiredFields(fields: readonly string[]): RequirableField[] {
  const names = Object.keys(requirableFields);
  const unknown = fields.filter((field) => !names.includes(field));
  if (unknown.length) throw invalidParameter('requiredFields', `expected names among ${names.join(', ')} (unknown: ${unknown.join(', ')})`);
  return [...new Set(fields)] as RequirableField[];
}

const known = (required: readonly string[] | undefined) => (required ?? []).filter((field): field is RequirableField => Object.hasOwn(requirableFields, field));

/** The required fields of the settings that are still requirable, as Application.requiredFields answers them. */
export const requiredFieldsOf = (required: readonly string[] | undefined): SignInProfileField[] => known(required) as SignInProfileField[];

/** The required fields the member has not filled in yet. */
export function missingFields(member: MemberRow, required: readonly string[] | undefined): RequirableField[] {
  return known(required).filter((field) => !member[field]);
}

/** What the registration form always shows, optional unless the application requires it. */
const alwaysOnRegistration: readonly RequirableField[] = ['firstName', 'country'];

/**
 * The registration form: first name and country always (optional unless the application requires
 * them), then every other field the application requires, in the order of `requirableFields`. The
 * page marks these and `readProfileForm` enforces these, so a field the form calls optional is
 * never asked for again as required once the fan is signed in, and a required one is asked for
 * here, once.
 */
export function registrationFields(required: readonly string[] | undefined): FormField[] {
  const needed = new Set(known(required));
  return (Object.keys(requirableFields) as RequirableField[]).filter((name) => alwaysOnRegistration.includes(name) || needed.has(name)).map((name) => ({ name, required: needed.has(name) }));
}

/** The completion page: the required fields the member has not filled in, all required. */
export function completionFields(member: MemberRow, required: readonly string[] | undefined): FormField[] {
  return missingFields(member, required).map((name) => ({ name, required: true }));
}

export type ProfileForm = { input: MemberProfileInput; error?: undefined } | { error: string; field: RequirableField };

/**
 * Reads a posted hosted form against the fields it showed: a required field left empty is refused
 * with its `ask` message, an optional one may be empty. Values are checked by the members service's
 * own rules (profileValues), so the page reports them before anything is written.
 */
export function readProfileForm(fields: readonly FormField[], body: Record<string, string | undefined>): ProfileForm {
  const input: MemberProfileInput = {};
  for (const { name, required } of fields) {
    const value = body[name]?.trim();
    if (!value) {
      if (required) return { error: requirableFields[name].ask, field: name };
      continue;
    }
    if (name === 'gender') {
      if (!(Object.values(Gender) as string[]).includes(value)) return { error: requirableFields.gender.ask, field: name };
      input.gender = value as Gender;
    } else {
      input[name] = value;
    }
  }
  try {
    profileValues(input);
  } catch (error) {
    if (error instanceof AppError && error.extensions.code === 'INVALID_PARAMETER') {
      const field = fields.find(({ name }) => name.toLowerCase() === String(error.extensions.param).toLowerCase())?.name ?? fields[0].name;
      return { error: error.message, field };
    }
    throw error;
  }
  return { input };
}
