import { Arg, Authorized, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { applicationCaller, CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { recordSettingsChange } from '../audit/audit.js';
import { toBrand } from '../brands/brands.mapping.js';
import { findBrandsByIds } from '../brands/brands.queries.js';
import { getApplication, toApplication } from '../tenancy/tenancy.service.js';
import { Application } from '../tenancy/tenancy.types.js';
import { toOptIn } from './optins.service.js';
import { OptInListRef, OptInPayload } from './optins.types.js';
import { readSelfServiceLists, setSelfServiceLists, viewerOptInOrOut } from './self-service-lists.js';
import { SelfServiceLists, SelfServiceListsInput, SetSelfServiceListsPayload } from './self-service-lists.types.js';
import { findSegmentsByIds } from './segments.queries.js';
import { toSegment } from './segments.service.js';

/** Application.selfServiceLists and setSelfServiceLists: the lists an application opens to its fans' member JWTs. */
@Resolver(() => Application)
export class SelfServiceListsResolver {
  @FieldResolver(() => SelfServiceLists, { description: 'The lists fans may opt into and out of with a member JWT of this application (viewerOptIn); setSelfServiceLists.' })
  async selfServiceLists(@Root() application: Application, @Ctx() context: Context): Promise<SelfServiceLists> {
    const caller = applicationCaller(context);
    const db = context.database.db;
    const lists = await readSelfServiceLists(db, caller.accountId, application.id);
    const [brands, segments] = await Promise.all([
      lists.brandIds.length ? findBrandsByIds(db, caller.accountId, lists.brandIds) : [],
      lists.segmentIds.length ? findSegmentsByIds(db, caller.accountId, lists.segmentIds) : [],
    ]);
    const byId = <T extends { id: number }>(rows: T[], ids: number[]) => ids.map((id) => rows.find((row) => row.id === id)).filter((row): row is T => row !== undefined);
    return {
      global: lists.global,
      brands: byId(brands, lists.brandIds).map(toBrand),
      segments: byId(segments, lists.segmentIds)
        .filter((row) => row.kind === 'list')
        .map(toSegment),
    };
  }

  @Authorized()
  @Mutation(() => SetSelfServiceListsPayload, {
    description:
      "Opens lists to this application's fans: with a member JWT they may opt into and out of these (viewerOptIn, viewerOptOut), and no others. " +
      'Replaces the lists set before; until set, none is open.',
  })
  async setSelfServiceLists(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => SelfServiceListsInput, { description: 'Every list open to fans.' }) input: SelfServiceListsInput,
  ): Promise<SetSelfServiceListsPayload> {
    const { result, userErrors } = await setSelfServiceLists(context.database.db, caller.accountId, caller.applicationId, input);
    if (!result) return { application: null, userErrors };
    await recordSettingsChange(context, caller, 'selfServiceLists');
    return { application: toApplication(await getApplication(context.database.db, caller.accountId, caller.applicationId)), userErrors };
  }
}

/** viewerOptIn and viewerOptOut: a member JWT's own opt-ins, to the lists its application opens to fans. */
@Resolver()
export class ViewerOptInResolver {
  @Authorized('member')
  @Mutation(() => OptInPayload, {
    description:
      'With a member JWT: opts the signed-in member into a list its application opens to fans (Application.selfServiceLists). A list not open to fans, ' +
      'gone, or of another account is NOT_FOUND at ["list", "brandId"] (the same answer for each); nothing is written then. An API key is refused: it uses memberOptIn.',
  })
  async viewerOptIn(@Ctx() context: Context, @Arg('list', () => OptInListRef, { description: 'The list, named in exactly one way.' }) list: OptInListRef): Promise<OptInPayload> {
    const { result, userErrors } = await viewerOptInOrOut(context, list, 'in');
    return { optIn: result && toOptIn(result), userErrors };
  }

  @Authorized('member')
  @Mutation(() => OptInPayload, {
    description:
      'With a member JWT: opts the signed-in member out of a list its application opens to fans; the opt-in is kept with optedOutAt. A list never joined is NOT_FOUND ' +
      'at the list, and so is one not open to fans. An API key is refused: it uses memberOptOut.',
  })
  async viewerOptOut(@Ctx() context: Context, @Arg('list', () => OptInListRef, { description: 'The list, named in exactly one way.' }) list: OptInListRef): Promise<OptInPayload> {
    const { result, userErrors } = await viewerOptInOrOut(context, list, 'out');
    return { optIn: result && toOptIn(result), userErrors };
  }
}
