import type { NonEmptyArray } from 'type-graphql';
import { ActivityResolver } from '../modules/activities/activities.resolver.js';
import { ActivityMutationsResolver } from '../modules/activities/activities.mutations.resolver.js';
import { ActivityRecordResolver } from '../modules/activities/records.resolver.js';
import { ActivityCountActivityResolver } from '../modules/activities/activity-refs.resolver.js';
import { ActivityRecordConnectionResolver, FeedResolver } from '../modules/activities/feed.resolver.js';
import { LiveFeedResolver } from '../modules/activities/live-feed.resolver.js';
import { MemberConnectionResolver, MemberEdgeResolver, ScoringResolver } from '../modules/scoring/scoring.resolver.js';
import { BrandResolver } from '../modules/brands/brands.resolver.js';
import { ActivityBrandResolver, ActivityRecordBrandResolver, BrandAffinityBrandResolver, MemberConnectionBrandResolver } from '../modules/brands/brand-refs.resolver.js';
import { BrandMutationsResolver } from '../modules/brands/brands.mutations.resolver.js';
import { MemberDomainResolver, MemberResolver } from '../modules/members/members.resolver.js';
import { GeoCoordinatesResolver } from '../modules/members/geo.resolver.js';
import { ViewerResolver } from '../modules/members/viewer.resolver.js';
import { MemberLifecycleResolver } from '../modules/lifecycle/lifecycle.resolver.js';
import { MemberOptInsResolver, OptInResolver } from '../modules/segments/optins.resolver.js';
import { PresaveResolver } from '../modules/segments/presave.resolver.js';
import { SelfServiceListsResolver, ViewerOptInResolver } from '../modules/segments/self-service-lists.resolver.js';
import { BrandSegmentsResolver, SegmentResolver } from '../modules/segments/segments.resolver.js';
import { SegmentFilterResolver } from '../modules/segments/segment-filter.resolver.js';
import {
  ActivityTotalDefinitionResolver,
  ActivityTotalsBrandResolver,
  AgeBucketBoundsResolver,
  BrandStatsBrandResolver,
  GenderCountValueResolver,
  SegmentStatsSegmentResolver,
} from '../modules/stats/stats-refs.resolver.js';
import { SegmentMutationsResolver } from '../modules/segments/segments.mutations.resolver.js';
import { BrandStatsResolver, MemberTimelinesResolver, RegistrationStatsResolver, TopDomainsResolver } from '../modules/stats/stats.resolver.js';
import { ApplicationResolver } from '../modules/tenancy/tenancy.resolver.js';
import { UsageResolver } from '../modules/usage/usage.resolver.js';
import { WidgetResolver } from '../modules/widget/widget.resolver.js';
import { EmailResolver } from '../modules/widget/email.resolver.js';
import { SignInPageLookResolver } from '../modules/widget/look.resolver.js';
import { AuditEventConnectionResolver, AuditResolver } from '../modules/audit/audit.resolver.js';
import { PrivacyResolver } from '../modules/privacy/privacy.resolver.js';

/** Every resolver class of the schema; a module adds its own here. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- type-graphql's buildSchema takes the classes as Function
export const resolvers: NonEmptyArray<Function> = [
  ApplicationResolver,
  UsageResolver,
  MemberResolver,
  MemberDomainResolver,
  GeoCoordinatesResolver,
  ViewerResolver,
  MemberLifecycleResolver,
  ActivityResolver,
  ActivityMutationsResolver,
  ActivityRecordResolver,
  ActivityCountActivityResolver,
  FeedResolver,
  ActivityRecordConnectionResolver,
  LiveFeedResolver,
  ScoringResolver,
  MemberConnectionResolver,
  MemberEdgeResolver,
  BrandResolver,
  ActivityBrandResolver,
  ActivityRecordBrandResolver,
  MemberConnectionBrandResolver,
  BrandAffinityBrandResolver,
  SegmentResolver,
  SegmentFilterResolver,
  BrandMutationsResolver,
  SegmentResolver,
  SegmentMutationsResolver,
  BrandSegmentsResolver,
  OptInResolver,
  MemberOptInsResolver,
  SelfServiceListsResolver,
  ViewerOptInResolver,
  PresaveResolver,
  BrandStatsResolver,
  BrandStatsBrandResolver,
  ActivityTotalsBrandResolver,
  ActivityTotalDefinitionResolver,
  SegmentStatsSegmentResolver,
  AgeBucketBoundsResolver,
  GenderCountValueResolver,
  RegistrationStatsResolver,
  MemberTimelinesResolver,
  TopDomainsResolver,
  WidgetResolver,
  EmailResolver,
  SignInPageLookResolver,
  AuditResolver,
  AuditEventConnectionResolver,
  PrivacyResolver,
];
