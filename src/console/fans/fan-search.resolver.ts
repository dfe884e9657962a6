import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import { searchFans } from '../../modules/fan-search/fan-search.js';
import { staffCaller, type ConsoleRule } from '../auth.js';
import type { ConsoleContext } from '../context.js';
import { displayNameOf } from './fan-mapping.js';
import { FanConnectionType, FanMatchEnum, FanSearchKindEnum } from './fans.types.js';

/** The console's fan search (modules/fan-search, docs/console.md "Fan search"). */
@Resolver()
export class FanSearchResolver {
  @Authorized<ConsoleRule>('fans.read')
  @Query(() => FanConnectionType, {
    description:
      'Fans whose member id or network user id is the digits typed, whose email or verified email starts with an address typed (with @), or whose first name, surname or username starts with the text typed (or "first surname"); exact matches first (fans.read). At most 200 characters; %, _ and \\ are taken as themselves.',
  })
  async fans(
    @Ctx() context: ConsoleContext,
    @Arg('search', () => String, { description: 'What was typed in "Search fans".' }) search: string,
    @Arg('first', () => Int, { nullable: true, defaultValue: 20, description: 'Hits per page, 1 to 50.' }) first: number,
    @Arg('after', () => String, { nullable: true, description: "The last hit's cursor of the page before." }) after: string | null,
  ): Promise<FanConnectionType> {
    const page = await searchFans(context.database.db, staffCaller(context).accountId, search, { first, after });
    return {
      kind: page.kind as FanSearchKindEnum,
      edges: page.hits.map((hit) => ({
        cursor: hit.cursor,
        matchedOn: hit.matchedOn as FanMatchEnum,
        exact: hit.exact,
        node: { ...hit.member, displayName: displayNameOf(hit.member) },
      })),
      pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.hits.at(-1)?.cursor ?? null },
    };
  }
}
