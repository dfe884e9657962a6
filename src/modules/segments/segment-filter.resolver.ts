import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from '../../core/context.js';
import { MemberFilterValue, WindowValue, type ActivityRef, type Period } from '../../filters/member-filter-value.types.js';
import { PeriodUnit, type WindowInput } from '../../filters/window.types.js';
import { readSavedFilter } from './segment-membership.js';
import { Segment } from './segments.types.js';

/**
 * A FILTER segment's saved filter, typed: `memberFilter` (a MemberFilter as read back) and
 * `filterWindow`, beside the JSON of `filter`. The same rule as `filter`: an application's key
 * reads it, a member's token reads null (it is the tenant's targeting).
 */
@Resolver(() => Segment)
export class SegmentFilterResolver {
  @FieldResolver(() => MemberFilterValue, { nullable: true, description: 'The saved filter of a FILTER segment, typed as MemberFilter; null for a LIST segment and for a member token.' })
  memberFilter(@Root() segment: Segment, @Ctx() context: Context): MemberFilterValue | null {
    if (context.caller.kind === 'member' || !segment.filter) return null;
    return toMemberFilterValue(segment.filter);
  }

  @FieldResolver(() => WindowValue, {
    nullable: true,
    description: "The window of a FILTER segment's activity conditions; null when none was saved (one week, the default), for a LIST segment and for a member token.",
  })
  filterWindow(@Root() segment: Segment, @Ctx() context: Context): WindowValue | null {
    if (context.caller.kind === 'member' || !segment.filter) return null;
    const window = readSavedFilter(segment.filter).window;
    return window ? toWindowValue(window) : null;
  }
}

const list = (value: readonly unknown[] | undefined): string[] | null => (value ? value.map(String) : null);
const one = (value: string | number | undefined | null): string | null => (value === undefined || value === null ? null : String(value));
const flag = (value: boolean | undefined): boolean | null => value ?? null;
const refs = (value: readonly { activityId: unknown; brandId?: unknown }[] | undefined): ActivityRef[] | null =>
  value ? value.map((ref) => ({ activityId: String(ref.activityId as string), brandId: one(ref.brandId as string | undefined) })) : null;

/** The stored JSON, read as segments read it when they compute their members (readSavedFilter). */
export function toMemberFilterValue(raw: Record<string, unknown>): MemberFilterValue {
  const { filter } = readSavedFilter(raw);
  return {
    brandId: one(filter.brandId),
    segmentId: one(filter.segmentId),
    membersFromSegment: one(filter.membersFromSegment),
    activityIds: list(filter.activityIds),
    includeOneTime: flag(filter.includeOneTime),
    services: list(filter.services),
    countries: list(filter.countries),
    region: one(filter.region),
    domain: one(filter.domain),
    memberIds: list(filter.memberIds),
    excludeMemberIds: list(filter.excludeMemberIds),
    emails: list(filter.emails),
    anyOfActivities: refs(filter.anyOfActivities),
    allOfActivities: refs(filter.allOfActivities),
    paidOnly: flag(filter.paidOnly),
    optedIn: flag(filter.optedIn),
    requiredFields: list(filter.requiredFields),
  };
}

const units: ReadonlySet<string> = new Set(Object.values(PeriodUnit));

/** A period as saved ({ amount, unit }); anything else reads as none. */
function periodOf(value: unknown): Period | null {
  if (!value || typeof value !== 'object') return null;
  const { amount, unit } = value as { amount?: unknown; unit?: unknown };
  if (typeof amount !== 'number' || typeof unit !== 'string' || !units.has(unit)) return null;
  return { amount, unit: unit as PeriodUnit };
}

/** An instant as saved: JSON holds it as text. */
function instantOf(value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  if (!(value instanceof Date) && typeof value !== 'string' && typeof value !== 'number') return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function toWindowValue(window: WindowInput): WindowValue {
  return { start: instantOf(window.start), end: instantOf(window.end), period: periodOf(window.period), periodEnd: periodOf(window.periodEnd) };
}
