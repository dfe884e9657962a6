import type { Executor } from '../../db/client.js';
import { lookupMember } from './members.service.js';
import type { MemberRowWith } from './members.queries.js';
import { lookupOfRef, type MemberRef } from './members.types.js';

/** The one field a MemberRef gives (`@oneOf` lets exactly one through): where a user error about it belongs, below the argument. */
export function memberRefField(ref: MemberRef): keyof MemberRef {
  const given = (Object.keys(ref) as (keyof MemberRef)[]).find((key) => ref[key] !== undefined && ref[key] !== null);
  return given ?? 'id';
}

/**
 * The member a MemberRef names, in this account; otherwise the lookup's error (NOT_FOUND, or
 * INVALID_PARAMETER for a malformed id), for the caller to place at `[argument, memberRefField(ref)]`
 * (validateAllAsync does). A member of another account is not found, as an id of nothing is.
 */
export function lookupMemberByRef(db: Executor, accountId: number, ref: MemberRef): Promise<MemberRowWith> {
  return lookupMember(db, accountId, lookupOfRef(ref));
}
