import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { compileFilter, filterId } from '../../filters/compile.js';
import { listingWindow, resolveWindow } from '../../filters/window.js';
import { WindowInput } from '../../filters/window.types.js';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import { decodeCursor, encodeCursor, maxOffset, maxPageSize, pageOffset, pageRequest } from '../../core/connection.js';
import type { Context } from '../../core/context.js';
import { missingParameter } from '../../core/errors.js';
import { listMembers } from '../scoring/member-listing.js';
import { MemberConnection, MemberListingArgs } from '../scoring/scoring.types.js';
import { toBrand } from './brands.mapping.js';
import * as q from './brands.queries.js';
import * as brands from './brands.service.js';
import type { BrandResult, BrandScope } from './brands.service.js';
import { Brand, BrandChange, BrandConnection, BrandInput, Crossover, CrossoverFilter } from './brands.types.js';
import { crossoverOf } from './crossover.queries.js';

function scopeOf(context: Context, caller: ApplicationCaller): BrandScope {
  return { db: context.database.db, accountId: caller.accountId, plan: caller.plan, settings: caller.settings };
}

/** An id argument of this account's records, reported under its REST name. */
export function requiredId(value: string | null | undefined, param = 'id'): number {
  const id = filterId(value, param);
  if (id === undefined) throw missingParameter(param);
  return id;
}

/** A brands page's cursor: the id of the brand it stands for (brands are listed by id). */
/** A place in crossover's ranking: a position, 0 to the deepest offset plus a page. */
const isPlaceCursor = (value: Record<string, unknown>): value is { o: number } =>
  Object.keys(value).length === 1 && Number.isSafeInteger(value.o) && (value.o as number) >= 0 && (value.o as number) <= maxOffset + maxPageSize;

const isBrandCursor = (value: Record<string, unknown>): value is { i: number } => Number.isSafeInteger(value.i);

const change = ({ row, warnings }: BrandResult): BrandChange => ({ brand: toBrand(row), warnings });

@Resolver(() => Brand)
export class BrandResolver {
  @Authorized()
  @Query(() => Brand, { nullable: true, description: 'One live brand of the account; not found otherwise (deleted brands too).' })
  async brand(@Ctx() context: Context, @CurrentApplication() caller: ApplicationCaller, @Arg('id', () => ID, { description: "The brand's id." }) id: string): Promise<Brand> {
    const scope = scopeOf(context, caller);
    return toBrand(await brands.requireBrand(scope.db, scope.accountId, requiredId(id)));
  }

  @Authorized()
  @Query(() => BrandConnection, { description: 'Live brands of the account by id, of one type (any case) when given.' })
  async brands(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('type', () => String, { nullable: true, description: 'Only brands of this type (Music, Sport, …; any case).' }) type: string | null,
    @Arg('first', () => Int, { nullable: true, defaultValue: 10, description: 'Brands per page, 1 to 1000 (more is refused); the size of a backward page too when last is left out.' })
    first: number | null,
    @Arg('after', () => String, { nullable: true, description: 'A cursor (pageInfo.endCursor): the page continues after that brand, even if it was deleted since.' })
    after: string | null,
    @Arg('offset', () => Int, { nullable: true, description: 'Brands skipped, from the cursor on (from the start without one); 0 to 100,000; not with last or before.' })
    offset: number | null,
    @Arg('last', () => Int, { nullable: true, description: 'Reads backward: the last brands by id (those before before, when given), 1 to 1000; first is then not read.' })
    last: number | null,
    @Arg('before', () => String, { nullable: true, description: 'A cursor (pageInfo.startCursor): the page that ends just before that brand; not with after.' })
    before: string | null,
  ): Promise<BrandConnection> {
    const scope = scopeOf(context, caller);
    // offset keeps its old meaning with after (skipped from the cursor on): only a backward page refuses it.
    const request = pageRequest({ first, last, before, after, offset: (last !== null && last !== undefined) || before ? offset : null });
    const cursor = decodeCursor(request.cursor, request.cursorParam, isBrandCursor);
    const start = pageOffset(offset);
    const limit = request.size;
    const page = request.backward ? { beforeId: cursor?.i, backward: true, offset: 0, limit: limit + 1 } : { afterId: cursor?.i, offset: start, limit: limit + 1 };
    const { rows, total } = await q.listBrands(scope.db, scope.accountId, type?.trim() || undefined, page);
    const shown = rows.slice(0, limit);
    if (request.backward) shown.reverse();
    const nodes = shown.map(toBrand);
    const edges = nodes.map((node) => ({ cursor: encodeCursor({ i: node.id }), node }));
    return {
      edges,
      nodes,
      pageInfo: {
        hasNextPage: request.backward ? Boolean(cursor) : rows.length > limit,
        hasPreviousPage: request.backward ? rows.length > limit : Boolean(cursor) || start > 0,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
      totalCount: total,
    };
  }

  @Authorized()
  @FieldResolver(() => MemberConnection, {
    description: "The brand's members: the arguments and ranking of Query.members, with the filter's brandId fixed to this brand.",
  })
  members(@Root() brand: Brand, @Ctx() context: Context, @Args(() => MemberListingArgs) args: MemberListingArgs): Promise<MemberConnection> {
    return listMembers(context, { ...args, filter: { ...(args.filter ?? {}), brandId: String(brand.id) } });
  }

  @Authorized()
  @Query(() => Crossover, { description: "Brands most shared with a brand's active members, or without brandId the most popular brands." })
  async crossover(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('brandId', () => ID, { nullable: true, description: 'The brand whose active members are the base; left out, members active on any brand.' })
    brandIdValue: string | null,
    @Arg('filter', () => CrossoverFilter, { nullable: true, description: 'Countries and networks of the base, and the type of the brands listed.' }) filter: CrossoverFilter | null,
    @Arg('window', () => WindowInput, { nullable: true, description: 'The window; left out, the week ending now; at most six months.' }) windowInput: WindowInput | null,
    @Arg('first', () => Int, { nullable: true, description: 'Brands per page: 10 by default, 1 to 1000 (more is refused).' }) first: number | null,
    @Arg('offset', () => Int, { nullable: true, description: 'Brands skipped before the page, 0 to 100,000; not with a cursor or last.' }) offset: number | null,
    @Arg('after', () => String, { nullable: true, description: "A cursor (an edge's cursor, pageInfo.endCursor): the page continues after that place in the ranking." })
    after: string | null,
    @Arg('last', () => Int, { nullable: true, description: 'Reads backward: the last brands of the ranking (those before before, when given), 1 to 1000; first is then not read.' })
    last: number | null,
    @Arg('before', () => String, { nullable: true, description: "A cursor (an edge's cursor, pageInfo.startCursor): the page that ends just before that place; not with after." })
    before: string | null,
  ): Promise<Crossover> {
    const scope = scopeOf(context, caller);
    const request = pageRequest({ first, offset, after, last, before });
    const cursor = decodeCursor(request.cursor, request.cursorParam, isPlaceCursor);
    const id = filterId(brandIdValue, 'brandId');
    if (id !== undefined) await brands.requireBrand(scope.db, scope.accountId, id, 'brandId');
    const window = resolveWindow(windowInput, listingWindow);
    const compiled = await compileFilter(scope.db, scope.accountId, { countries: filter?.countries, services: filter?.services }, window);
    const read = (page: { offset: number; limit: number }) => crossoverOf(context.database.read, compiled, window, { brandId: id, brandType: filter?.brandType?.trim() || undefined, ...page });
    // Crossover's places are positions in the ranking: a backward page ends at its cursor, or at the end of the ranking.
    let start = cursor ? cursor.o + 1 : pageOffset(offset);
    let limit = request.size;
    if (request.backward) {
      const end = cursor ? cursor.o : (await read({ offset: 0, limit: 0 })).total;
      start = Math.max(0, end - request.size);
      limit = end - start;
    }
    const { rows, total, baseMembers } = await read({ offset: start, limit });
    const nodes = rows.map((row) => ({
      brand: toBrand(row.brand),
      activeMembers: row.active,
      percentage: Math.round((row.active * 10_000) / baseMembers) / 100,
    }));
    const edges = nodes.map((node, index) => ({ cursor: encodeCursor({ o: start + index }), node }));
    return {
      totalCount: total,
      baseMembers,
      nodes,
      edges,
      pageInfo: {
        hasNextPage: start + nodes.length < total,
        hasPreviousPage: start > 0,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
    };
  }

  @Authorized('advanced')
  @Mutation(() => BrandChange, { description: 'Creates a brand; network ids are read from the URLs given.', deprecationReason: 'Use brandCreate.' })
  async createBrand(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => BrandInput, { description: 'The brand; name is required.' }) input: BrandInput,
  ): Promise<BrandChange> {
    return change(await brands.createBrand(scopeOf(context, caller), input));
  }

  @Authorized('advanced')
  @Mutation(() => BrandChange, { description: 'Changes the fields given; a network URL given again is read again.', deprecationReason: 'Use brandUpdate.' })
  async editBrand(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The brand's id." }) id: string,
    @Arg('input', () => BrandInput, { description: 'The fields to change; null clears one.' }) input: BrandInput,
  ): Promise<BrandChange> {
    return change(await brands.editBrand(scopeOf(context, caller), requiredId(id), input));
  }

  @Authorized('advanced')
  @Mutation(() => Boolean, { description: 'Deletes a brand; activity recorded against it stays readable.', deprecationReason: 'Use brandDelete.' })
  deleteBrand(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The brand's id; it is then not found, and its slug is free." }) id: string,
  ): Promise<boolean> {
    return brands.deleteBrand(scopeOf(context, caller), requiredId(id));
  }
}
