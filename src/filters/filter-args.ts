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
  @Field(() => WindowInput, { nullable: true }) window!: WindowInput | null;
}

/** The member filter and the time window, as `filter` and `window`. */
@ArgsType()
export class FilteredWindowArgs extends WindowArgs {
  @Field(() => MemberFilter, { nullable: true }) filter!: MemberFilter | null;
}
