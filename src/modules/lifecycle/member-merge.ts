import type { Transaction } from '../../db/client.js';
import { invalidParameter } from '../../core/errors.js';
import { mergeActivities } from '../activities/activities.merge.js';
import { currentMember } from '../members/members.merge.js';
import { moveOptIns, moveOwnedRows, moveSegmentMemberships, pointAtSurvivor, updateSurvivor } from '../members/members.merge.queries.js';
import { lockMembers, type MemberRow } from '../members/members.queries.js';
import { regroupMember } from '../score-windows/score-window-groups.queries.js';

/** Profile fields the survivor takes from the merged member when it has none of its own. */
export const profileFields = [
  'email',
  'verifiedEmail',
  'emailVerifiedAt',
  'firstName',
  'surname',
  'username',
  'gender',
  'birthDate',
  'bio',
  'avatarUrl',
  'address',
  'addressLine2',
  'city',
  'state',
  'country',
  'postCode',
  'homePhone',
  'mobilePhone',
  'website',
  'geoCountry',
  'geoCity',
  'geoRegion',
  'geoLat',
  'geoLong',
  'importCode',
  'lastLoginAt',
] as const satisfies readonly (keyof MemberRow)[];

/**
 * Moves everything of `merged` to `survivor` inside the caller's transaction: owned rows, missing
 * profile fields, custom fields the survivor lacks. The merged member's row stays as a pointer
 * (`merged_into_id`), so its id keeps answering, as the survivor.
 *
 * Both members are locked first (ascending id, `for update`) and re-read: the rows passed in only
 * name them. If either was merged away or deleted since the caller read it, nothing moves (CONFLICT
 * or NOT_FOUND). `check` sees the locked rows before anything moves (an explicit merge checks the
 * access token there). Answers the survivor's row as it was locked.
 *
 * It sits in lifecycle/, above the modules whose rows it moves (members, activities' records and
 * rollups, score-windows' kept totals and groups, segments' opt-ins and memberships), so none of
 * them knows of the others.
 */
export async function mergeInto(
  tx: Transaction,
  survivorRow: Pick<MemberRow, 'id' | 'accountId'>,
  mergedRow: Pick<MemberRow, 'id' | 'accountId'>,
  check?: (survivor: MemberRow, merged: MemberRow) => void,
): Promise<MemberRow> {
  const { accountId } = survivorRow;
  if (mergedRow.accountId !== accountId) throw new Error('members of different accounts cannot be merged');
  if (survivorRow.id === mergedRow.id) throw invalidParameter('fromId', 'a member cannot be merged into itself');
  const locked = await lockMembers(tx, accountId, [survivorRow.id, mergedRow.id]);
  const survivor = currentMember(locked, survivorRow.id, 'intoId');
  const merged = currentMember(locked, mergedRow.id, 'fromId');
  check?.(survivor, merged);
  // Every member-owned table's rows (services, domains, sign-in events) move as they are.
  await moveOwnedRows(tx, accountId, merged.id, survivor.id);
  await mergeActivities(tx, accountId, survivor.id, merged.id);
  await mergeLists(tx, accountId, survivor.id, merged.id);
  const filled: Partial<MemberRow> = {};
  for (const field of profileFields) {
    if (survivor[field] === null && merged[field] !== null) (filled as Record<string, unknown>)[field] = merged[field];
  }
  // The survivor's kept report groups follow the profile fields the merge fills in.
  await regroupMember(tx, accountId, survivor.id, { country: filled.country, gender: filled.gender, birthDate: filled.birthDate });
  await updateSurvivor(tx, accountId, survivor.id, { ...filled, extended: { ...merged.extended, ...survivor.extended } });
  await pointAtSurvivor(tx, accountId, merged.id, survivor.id);
  return survivor;
}

/**
 * Opt-ins move to the survivor, except a current opt-in to a list the survivor is already in,
 * which is closed (its history stays). The survivor joins the computed segments the merged member
 * was in.
 */
async function mergeLists(tx: Transaction, accountId: number, survivorId: number, mergedId: number): Promise<void> {
  await moveOptIns(tx, accountId, mergedId, survivorId);
  await moveSegmentMemberships(tx, accountId, mergedId, survivorId);
}
