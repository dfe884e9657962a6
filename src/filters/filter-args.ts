import { ArgsType, Field } from 'type-graphql';
import { MemberFilter } from './member-filter.types.js';
import { WindowInput } from './window.types.js';

/**
 * The argument groups the listings, the feed, the scores and the statistics repeat, declared once.
 * A resolver takes them with `@Args(() => FilteredWindowArgs)`; one that adds arguments of its own
 * declares an `@ArgsType()` class extending these. Every field names its type: the bundle is built
 * by esbuild, which emits no decorator metadata.
 */
@ArgsType()
export class WindowArgs {
  @Field(() => WindowInput, {
    nullable: true,
    description: "The time window (WindowInput); left out, the week ending now unless the field says otherwise. Clamped to the operation's longest span.",
  })
  window!: WindowInput | null;
}

/** The member filter and the time window, as `filter` and `window`. */
@ArgsType()
export class FilteredWindowArgs extends WindowArgs {
  @Field(() => MemberFilter, {
    nullable: true,
    description: "Which records count and which members take part (MemberFilter, docs/filters.md); left out, all of the account's, unless the field says otherwise.",
  })
  filter!: MemberFilter | null;
}

/**
 * A filter that keeps every member and counts every repeatable record, as one left out does: null,
 * or no field set. Its flags (includeOneTime, paidOnly, optedIn) are off when false as when left
 * out, and the REST routes send them false.
 */
export function isDefaultFilter(filter: MemberFilter | null | undefined): boolean {
  return !filter || Object.values(filter).every((value) => value === null || value === undefined || value === false);
}

/** A window that is the operation's default, as one left out is: null, or no field set. */
export function isDefaultWindow(window: WindowInput | null | undefined): boolean {
  return !window || Object.values(window).every((value) => value === null || value === undefined);
}
