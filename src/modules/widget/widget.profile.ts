import { invalidParameter } from '../../graphql/errors.js';
import type { MemberRow } from '../members/members.queries.js';

/**
 * Profile fields an application may require of fans signing in through the hosted flow, with how
 * the completion page asks for each.
 */
export const requirableFields = {
  firstName: { label: 'First name', type: 'text', autocomplete: 'given-name' },
  surname: { label: 'Surname', type: 'text', autocomplete: 'family-name' },
  username: { label: 'Username', type: 'text', autocomplete: 'username' },
  birthDate: { label: 'Date of birth', type: 'date', autocomplete: 'bday' },
  gender: { label: 'Gender', type: 'gender', autocomplete: 'sex' },
  city: { label: 'City', type: 'text', autocomplete: 'address-level2' },
  country: { label: 'Country (two-letter code, such as GB)', type: 'text', autocomplete: 'country' },
  postCode: { label: 'Post code', type: 'text', autocomplete: 'postal-code' },
} as const;

export type RequirableField = keyof typeof requirableFields;

export function readRequiredFields(fields: readonly string[]): RequirableField[] {
  const names = Object.keys(requirableFields);
  const unknown = fields.filter((field) => !names.includes(field));
  if (unknown.length) throw invalidParameter('requiredFields', `expected names among ${names.join(', ')} (unknown: ${unknown.join(', ')})`);
  return [...new Set(fields)] as RequirableField[];
}

/** The required fields the member has not filled in yet. */
export function missingFields(member: MemberRow, required: readonly string[] | undefined): RequirableField[] {
  return (required ?? []).filter((field): field is RequirableField => Object.hasOwn(requirableFields, field) && !member[field as RequirableField]);
}
