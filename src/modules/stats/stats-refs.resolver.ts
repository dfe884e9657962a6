import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { Context } from '../../core/context.js';
import { toActivity } from '../activities/activities.mapping.js';
import { Activity } from '../activities/activities.types.js';
import { toBrand } from '../brands/brands.mapping.js';
import { Brand } from '../brands/brands.types.js';
import { Gender } from '../members/members.types.js';
import { toSegment } from '../segments/segments.service.js';
import { Segment } from '../segments/segments.types.js';
import { AgeBucket, ActivityTotal, ActivityTotals, BrandStats, GenderCount, SegmentStats } from './stats.types.js';

/**
 * The reports' objects and typed values beside their ids and words (docs/graphql.md, "Types that
 * say what they hold"). Objects come through the request's loaders: one statement per report.
 */

async function reportBrand(context: Context, brandId: number): Promise<Brand> {
  // brandStats(brandId) found the brand (deleted ones too, as it always has): it is there.
  const row = await context.loaders.brands.withDeleted.load(brandId);
  if (!row) throw new Error(`brand ${brandId} of a report is missing`);
  return toBrand(row);
}

@Resolver(() => BrandStats)
export class BrandStatsBrandResolver {
  @FieldResolver(() => Brand, { description: 'The brand of the reports; it overrides any brandId of their filters.' })
  brand(@Root() root: BrandStats, @Ctx() context: Context): Promise<Brand> {
    return reportBrand(context, root.brandId);
  }
}

@Resolver(() => ActivityTotals)
export class ActivityTotalsBrandResolver {
  @FieldResolver(() => Brand, { description: 'The brand of the report.' })
  brand(@Root() totals: ActivityTotals, @Ctx() context: Context): Promise<Brand> {
    return reportBrand(context, totals.brandId);
  }
}

@Resolver(() => ActivityTotal)
export class ActivityTotalDefinitionResolver {
  @FieldResolver(() => Activity, { nullable: true, description: 'The activity definition of the group (also when deleted since), when grouped by activity; null otherwise.' })
  async definition(@Root() total: ActivityTotal, @Ctx() context: Context): Promise<Activity | null> {
    if (!total.activityId) return null;
    const row = await context.loaders.activities.definitions.load(total.activityId);
    return row ? toActivity(row) : null;
  }
}

@Resolver(() => SegmentStats)
export class SegmentStatsSegmentResolver {
  @FieldResolver(() => Segment, { nullable: true, description: 'The segment; null only when it was deleted after its figures were read.' })
  async segment(@Root() stats: SegmentStats, @Ctx() context: Context): Promise<Segment | null> {
    const row = await context.loaders.segments.byId.load(stats.segmentId);
    return row ? toSegment(row) : null;
  }
}

/** The age report's bucket words and the whole years they cover, both ends included. */
const ageBounds: Readonly<Record<string, { min: number | null; max: number | null }>> = {
  'under 13': { min: null, max: 12 },
  '13-17': { min: 13, max: 17 },
  '18-24': { min: 18, max: 24 },
  '25-34': { min: 25, max: 34 },
  '35-44': { min: 35, max: 44 },
  '45-54': { min: 45, max: 54 },
  '55-64': { min: 55, max: 64 },
  '65+': { min: 65, max: null },
};

@Resolver(() => AgeBucket)
export class AgeBucketBoundsResolver {
  @FieldResolver(() => Int, { nullable: true, description: 'The youngest age in the bucket, in whole years as of today; null for under 13 and for unknown.' })
  min(@Root() bucket: AgeBucket): number | null {
    return ageBounds[bucket.range]?.min ?? null;
  }

  @FieldResolver(() => Int, { nullable: true, description: 'The oldest age in the bucket, in whole years as of today (included); null for 65+ and for unknown.' })
  max(@Root() bucket: AgeBucket): number | null {
    return ageBounds[bucket.range]?.max ?? null;
  }

  @FieldResolver(() => Boolean, { description: 'False for the members without a birth date (range unknown; min and max are then null).' })
  known(@Root() bucket: AgeBucket): boolean {
    return bucket.range in ageBounds;
  }
}

const genders: ReadonlyMap<string, Gender> = new Map(Object.values(Gender).map((gender) => [gender as string, gender]));

@Resolver(() => GenderCount)
export class GenderCountValueResolver {
  @FieldResolver(() => Gender, { nullable: true, description: 'The gender counted; null for the members who gave none (gender unknown).' })
  value(@Root() count: GenderCount): Gender | null {
    return genders.get(count.gender) ?? null;
  }
}
