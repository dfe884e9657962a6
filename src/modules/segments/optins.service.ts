import type { Database } from '../../db/client.js';
import { filterId } from '../../filters/compile.js';
import { invalidParameter, missingParameter, notFound } from '../../core/errors.js';
import { requireBrand } from '../brands/brands.service.js';
import { lookupMember } from '../members/members.service.js';
import * as q from './optins.queries.js';
import type { OptInRow } from '../members/member-optins.queries.js';
import type { OptInList } from './optins.queries.js';
import { requireListSegment } from './segments.service.js';
import { OptInKind, type OptIn, type OptInInput, type OptInListRef } from './optins.types.js';
import { validateAllAsync, withUserErrors, type InputPaths } from '../../core/user-errors.js';
import { lookupMemberByRef, memberRefField } from '../members/member-ref.js';
import type { MemberRef } from '../members/members.types.js';

export interface OptInScope {
  db: Database;
  accountId: number;
}

const kinds = { brand: OptInKind.BRAND, segment: OptInKind.SEGMENT, global: OptInKind.GLOBAL } as const;

export function toOptIn(row: OptInRow): OptIn {
  return {
    id: row.id,
    kind: kinds[row.kind],
    brandId: row.brandId,
    segmentId: row.segmentId,
    label: row.kind === 'segment' ? row.segmentLabel : null,
    name: row.kind === 'brand' ? row.brandName : row.kind === 'segment' ? row.segmentName : null,
    optedInAt: row.optedInAt,
    optedOutAt: row.optedOutAt,
  };
}

/** The member (by id, email, or partner code and id) and the list (brand, list segment, or global), both of this account. */
async function resolve(scope: OptInScope, input: OptInInput): Promise<{ memberId: number; list: OptInList }> {
  const memberIdGiven = input.memberId?.trim() || undefined;
  const email = input.email?.trim() || undefined;
  const partnerCode = input.partnerCode?.trim() || undefined;
  const partnerId = input.partnerId?.trim() || undefined;
  if (!memberIdGiven && !email && !partnerCode && !partnerId) {
    throw missingParameter('memberId', 'Name the member by id, email, or partnerCode and partnerID.');
  }
  const lookup = memberIdGiven ? { id: memberIdGiven } : email ? { email } : { partnerCode, partnerId };
  const member = await lookupMember(scope.db, scope.accountId, lookup, undefined, 'memberId');
  const brandId = filterId(input.brandId, 'brandId');
  const segmentId = filterId(input.segmentId, 'segmentId');
  if (brandId !== undefined && segmentId !== undefined) {
    // A brand's segments are lists of their own: the caller names one list.
    throw invalidParameter('segmentId', 'name one list: a brand or a segment, not both');
  }
  if (brandId !== undefined) {
    await requireBrand(scope.db, scope.accountId, brandId, 'brandId');
    return { memberId: member.id, list: { kind: 'brand', brandId } };
  }
  if (segmentId !== undefined) {
    await requireListSegment(scope.db, scope.accountId, segmentId, 'segmentId');
    return { memberId: member.id, list: { kind: 'segment', segmentId } };
  }
  return { memberId: member.id, list: { kind: 'global' } };
}

/** Opts in; while an opt-in is current, repeating it changes nothing and answers that one. */
export async function optIn(scope: OptInScope, input: OptInInput): Promise<OptInRow> {
  const { memberId, list } = await resolve(scope, input);
  return optInMember(scope, memberId, list);
}

/**
 * Opts a member in. The member is held while the opt-in is written, so a merge racing it waits and
 * moves it; a member merged meanwhile is opted in as its survivor, a member deleted meanwhile is not found.
 * The answer is read while the member is still held: once the transaction ends, a merge that waited
 * for it moves the opt-in to the survivor at once, and a read after it found nothing under the
 * member it was written for (seen on Citus, where the statements between take longer).
 */
export async function optInMember(scope: OptInScope, memberId: number, list: OptInList): Promise<OptInRow> {
  return scope.db.transaction(async (tx) => {
    const held = await q.holdMemberOnList(tx, scope.accountId, memberId, list);
    if (held === undefined) throw notFound('Member', 'memberId');
    await q.insertOptInIfAbsent(tx, scope.accountId, held, list);
    const row = await q.latestOptIn(tx, scope.accountId, held, list);
    if (!row) throw new Error('the opt-in just written was not found');
    return row;
  });
}

/**
 * Opts out: the current opt-in is stamped and kept. Opting out again answers the last opt-in,
 * unchanged; a member who never opted into the list is not found there.
 */
export async function optOut(scope: OptInScope, input: OptInInput): Promise<OptInRow> {
  const { memberId, list } = await resolve(scope, input);
  const row = await optOutMember(scope, memberId, list);
  if (!row) throw notFound('An opt-in of this member to this list', list.kind === 'brand' ? 'memberId' : 'segmentId');
  return row;
}

/**
 * Opts a member out of a list, held as optInMember holds it (and read while held); answers the
 * member's latest opt-in to the list, or undefined when the member never opted into it.
 */
export async function optOutMember(scope: OptInScope, memberId: number, list: OptInList): Promise<OptInRow | undefined> {
  return scope.db.transaction(async (tx) => {
    const held = await q.holdMemberOnList(tx, scope.accountId, memberId, list);
    if (held === undefined) throw notFound('Member', 'memberId');
    await q.endOptIn(tx, scope.accountId, held, list);
    return q.latestOptIn(tx, scope.accountId, held, list);
  });
}

/** The one field an OptInListRef gives (`@oneOf` lets exactly one through): where a user error about it belongs. */
export function listRefField(ref: OptInListRef): keyof OptInListRef {
  return ref.brandId != null ? 'brandId' : ref.segmentId != null ? 'segmentId' : 'global';
}

/**
 * The list an OptInListRef names, of this account: a live brand, a list segment, or the global
 * list. Errors name the ref's field (`brandId`, `segmentId`, `global`) as their parameter; a brand
 * or segment of another account is not found, as an id of nothing is.
 */
export async function resolveListRef(scope: OptInScope, ref: OptInListRef): Promise<OptInList> {
  const field = listRefField(ref);
  if (field === 'global') {
    if (ref.global !== true) throw invalidParameter('global', 'true names the global list; name a brand or a segment otherwise');
    return { kind: 'global' };
  }
  const id = filterId(ref[field], field);
  if (id === undefined) throw missingParameter(field, `Name the list by its ${field}.`);
  if (field === 'brandId') {
    await requireBrand(scope.db, scope.accountId, id, field);
    return { kind: 'brand', brandId: id };
  }
  await requireListSegment(scope.db, scope.accountId, id, field);
  return { kind: 'segment', segmentId: id };
}

/** A member and a list named by refs, both checked at once (validateAllAsync): every problem with either, under its argument's path. */
async function resolveRefs(scope: OptInScope, member: MemberRef, list: OptInListRef): Promise<{ memberId: number; list: OptInList }> {
  const found = await validateAllAsync({ member: () => lookupMemberByRef(scope.db, scope.accountId, member), list: () => resolveListRef(scope, list) }, (key) =>
    key === 'member' ? ['member', memberRefField(member)] : ['list', listRefField(list)],
  );
  return { memberId: found.member.id, list: found.list };
}

/** Where a problem found while writing (the member gone meanwhile, no opt-in to end) sits in memberOptIn's and memberOptOut's arguments. */
function refPaths(member: MemberRef, list: OptInListRef): InputPaths {
  return { params: { memberId: ['member', memberRefField(member)] }, fallback: ['list', listRefField(list)] };
}

/** memberOptIn: optIn by refs, its problems as user errors (nothing written when there are any). */
export function memberOptIn(scope: OptInScope, member: MemberRef, list: OptInListRef) {
  return withUserErrors(
    async () => {
      const found = await resolveRefs(scope, member, list);
      return optInMember(scope, found.memberId, found.list);
    },
    refPaths(member, list),
  );
}

/** memberOptOut: optOut by refs; a member who never opted into the list is NOT_FOUND at the list. */
export function memberOptOut(scope: OptInScope, member: MemberRef, list: OptInListRef) {
  return withUserErrors(
    async () => {
      const found = await resolveRefs(scope, member, list);
      const row = await optOutMember(scope, found.memberId, found.list);
      if (!row) throw notFound('An opt-in of this member to this list', null);
      return row;
    },
    refPaths(member, list),
  );
}

/** The segment a registration names (`segmentid`): a list segment of the account, checked before anything is written. */
export async function registrationSegment(db: Database, accountId: number, value: string | null | undefined): Promise<OptInList | undefined> {
  const segmentId = filterId(value, 'segmentId');
  if (segmentId === undefined) return undefined;
  await requireListSegment(db, accountId, segmentId, 'segmentId');
  return { kind: 'segment', segmentId };
}
