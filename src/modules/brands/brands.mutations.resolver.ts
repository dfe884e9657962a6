import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { CurrentApplication, type ApplicationCaller } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { withUserErrors, type InputPaths } from '../../core/user-errors.js';
import { toBrand } from './brands.mapping.js';
import { BrandCreatePayload, BrandDeletePayload, BrandUpdatePayload } from './brands.payloads.js';
import { requiredId } from './brands.resolver.js';
import * as brands from './brands.service.js';
import { BrandInput } from './brands.types.js';

/** Where the services' parameters sit in these mutations' arguments (a problem found by validateAll carries its own path). */
const paths: InputPaths = { params: { id: ['id'], name: ['input', 'name'] } };

/**
 * The brand mutations a label's forms call (docs/graphql.md, "Errors as data"): every problem
 * with the input at once as user errors, nothing written then; the plan stays a top-level error.
 */
@Resolver()
export class BrandMutationsResolver {
  @Authorized('advanced')
  @Mutation(() => BrandCreatePayload, { nullable: true, description: 'Creates a brand (advanced plan); network ids are read from the URLs given.' })
  async brandCreate(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('input', () => BrandInput, { description: 'The brand; name is required.' }) input: BrandInput,
  ): Promise<BrandCreatePayload> {
    const { result, userErrors } = await withUserErrors(() => brands.createBrand(scopeOf(context, caller), input), paths);
    return { brand: result && toBrand(result.row), warnings: result?.warnings ?? [], userErrors };
  }

  @Authorized('advanced')
  @Mutation(() => BrandUpdatePayload, { nullable: true, description: 'Changes the fields given of a live brand (advanced plan); a network URL given again is read again.' })
  async brandUpdate(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The brand's id." }) id: string,
    @Arg('input', () => BrandInput, { description: 'The fields to change; null clears one.' }) input: BrandInput,
  ): Promise<BrandUpdatePayload> {
    const { result, userErrors } = await withUserErrors(() => brands.editBrand(scopeOf(context, caller), requiredId(id), input), paths);
    return { brand: result && toBrand(result.row), warnings: result?.warnings ?? [], userErrors };
  }

  @Authorized('advanced')
  @Mutation(() => BrandDeletePayload, { nullable: true, description: 'Deletes a brand (advanced plan); activity recorded against it stays readable.' })
  async brandDelete(
    @Ctx() context: Context,
    @CurrentApplication() caller: ApplicationCaller,
    @Arg('id', () => ID, { description: "The brand's id; it is then not found, and its slug is free." }) id: string,
  ): Promise<BrandDeletePayload> {
    const { result, userErrors } = await withUserErrors(async () => {
      const brandId = requiredId(id);
      await brands.deleteBrand(scopeOf(context, caller), brandId);
      return brandId;
    }, paths);
    return { deletedBrandId: result, userErrors };
  }
}

function scopeOf(context: Context, caller: ApplicationCaller): brands.BrandScope {
  return { db: context.database.db, accountId: caller.accountId, plan: caller.plan, settings: caller.settings };
}
