import type { Database, Executor } from '../../db/client.js';
import { compileFilter } from '../../filters/compile.js';
import type { MemberFilter } from '../../filters/member-filter.types.js';
import { listingWindow, resolveWindow } from '../../filters/window.js';
import type { WindowInput } from '../../filters/window.types.js';
import { invalidParameter } from '../../core/errors.js';
import { clearSegmentMembers, filterSegmentsOf, insertMatchingMembers } from './segment-membership.queries.js';

const listFields = ['activityIds', 'services', 'countries', 'memberIds', 'excludeMemberIds', 'emails', 'requiredFields'] as const;
const idFields = ['brandId', 'segmentId', 'membersFromSegment'] as const;
const textFields = ['region', 'domain'] as const;
const flagFields = ['includeOneTime', 'paidOnly', 'optedIn'] as const;
const refFields = ['anyOfActivities', 'allOfActivities'] as const;
/** Fields that make the filter about activity: members must then have counted activity in the window. */
const activityFields = ['brandId', 'activityIds', 'services', 'includeOneTime'] as const;

export interface SavedFilter {
  filter: MemberFilter;
  window?: WindowInput;
  aboutActivity: boolean;
}

const scalar = (value: unknown) => (typeof value === 'number' ? String(value) : value);

/**
 * A filter segment's saved filter: the fields of `MemberFilter` (as in GraphQL), and optionally
 * `window: { period: { amount, unit } }` for its activity conditions (one week by default).
 * Anything else is refused, so a typo does not silently widen the segment.
 */
export function readSavedFilter(raw: Record<string, unknown>): SavedFilter {
  const filter: Record<string, unknown> = {};
  const known = new Set<string>([...listFields, ...idFields, ...textFields, ...flagFields, ...refFields, 'window']);
  for (const [name, value] of Object.entries(raw)) {
    if (!known.has(name)) throw invalidParameter('filter', `unknown filter field '${name}'`);
    if (value === null || value === undefined || name === 'window') continue;
    if ((listFields as readonly string[]).includes(name)) {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' && typeof item !== 'number')) throw invalidParameter('filter', `'${name}' is a list`);
      filter[name] = value.map(scalar);
    } else if ((idFields as readonly string[]).includes(name) || (textFields as readonly string[]).includes(name)) {
      if (typeof value !== 'string' && typeof value !== 'number') throw invalidParameter('filter', `'${name}' is a single value`);
      filter[name] = scalar(value);
    } else if ((flagFields as readonly string[]).includes(name)) {
      if (typeof value !== 'boolean') throw invalidParameter('filter', `'${name}' is true or false`);
      filter[name] = value;
    } else {
      if (!Array.isArray(value) || value.some((ref) => !ref || typeof ref !== 'object' || !('activityId' in ref))) throw invalidParameter('filter', `'${name}' is a list of { activityId, brandId }`);
      filter[name] = value.map((ref: Record<string, unknown>) => ({ activityId: scalar(ref.activityId), brandId: scalar(ref.brandId ?? undefined) }));
    }
  }
  const window = raw.window && typeof raw.window === 'object' ? (raw.window as WindowInput) : undefined;
  return { filter, window, aboutActivity: activityFields.some((name) => filter[name] !== undefined) };
}

/** Checks a saved filter against the account (unknown ids are not found) before it is stored. */
export async function checkSavedFilter(db: Executor, accountId: number, raw: Record<string, unknown>): Promise<void> {
  const saved = readSavedFilter(raw);
  await compileFilter(db, accountId, saved.filter, resolveWindow(saved.window, listingWindow));
}

/**
 * Computes who is in a filter segment now, for every member or one (member show's `refresh`),
 * replacing the stored membership in one transaction. Returns how many members matched.
 */
export async function computeSegmentMembers(db: Database, accountId: number, segment: { id: number; filter: Record<string, unknown> | null }, memberId?: number): Promise<number> {
  const saved = readSavedFilter(segment.filter ?? {});
  const window = resolveWindow(saved.window, listingWindow);
  const filter = await compileFilter(db, accountId, saved.filter, window);
  return db.transaction(async (tx) => {
    await clearSegmentMembers(tx, accountId, segment.id, memberId);
    return insertMatchingMembers(tx, accountId, segment.id, { filter, window, aboutActivity: saved.aboutActivity, memberId });
  });
}

/** Member show's `refresh`: this member's place in every filter segment of the account, now. */
export async function refreshMemberSegments(db: Database, accountId: number, memberId: number): Promise<void> {
  const filterSegments = await filterSegmentsOf(db, accountId);
  for (const segment of filterSegments) await computeSegmentMembers(db, accountId, segment, memberId);
}
