import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from '../../core/context.js';
import { Activity, ActivityRecord } from '../activities/activities.types.js';
import { BrandAffinity, MemberConnection } from '../scoring/scoring.types.js';
import { toBrand } from './brands.mapping.js';
import { Brand } from './brands.types.js';

/**
 * The brand objects beside the brand ids of lower modules' types (activities, scoring), which
 * cannot name Brand themselves. Each goes through the request's `brands.withDeleted` loader: a page
 * costs one statement, and a brand deleted since still answers (its row is kept, `deletedAt` set).
 */
async function brandOf(context: Context, id: number | null | undefined): Promise<Brand | null> {
  if (!id) return null;
  const row = await context.loaders.brands.withDeleted.load(id);
  return row ? toBrand(row) : null;
}

@Resolver(() => Activity)
export class ActivityBrandResolver {
  @FieldResolver(() => Brand, { nullable: true, description: 'The brand it belongs to (also when deleted since: see Brand.deletedAt); null for an activity of the whole account.' })
  brand(@Root() activity: Activity, @Ctx() context: Context): Promise<Brand | null> {
    return brandOf(context, activity.brandId);
  }
}

@Resolver(() => ActivityRecord)
export class ActivityRecordBrandResolver {
  @FieldResolver(() => Brand, {
    nullable: true,
    description: "The brand it counts for: the one given when recorded, else the activity's (also when deleted since: see Brand.deletedAt); null for none.",
  })
  brand(@Root() record: ActivityRecord, @Ctx() context: Context): Promise<Brand | null> {
    return brandOf(context, record.brandId);
  }
}

@Resolver(() => MemberConnection)
export class MemberConnectionBrandResolver {
  @FieldResolver(() => Brand, { nullable: true, description: "The brand of the listing's filter (brandId, or the segment's brand); null for none." })
  brand(@Root() connection: MemberConnection, @Ctx() context: Context): Promise<Brand | null> {
    return brandOf(context, connection.brandId);
  }
}

@Resolver(() => BrandAffinity)
export class BrandAffinityBrandResolver {
  @FieldResolver(() => Brand, { description: 'The brand (also when deleted since: see Brand.deletedAt).' })
  async brand(@Root() affinity: BrandAffinity, @Ctx() context: Context): Promise<Brand> {
    const brand = await brandOf(context, affinity.brandId);
    if (!brand) throw new Error(`brand ${affinity.brandId} of a member's top brands is missing`);
    return brand;
  }
}
