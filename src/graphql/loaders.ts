import type { Context } from '../core/context.js';
import { lazily } from '../lib/batching.js';
import { createActivityLoaders } from '../modules/activities/activities.loaders.js';
import { createBrandLoaders } from '../modules/brands/brands.loaders.js';
import { createMemberLoaders } from '../modules/members/members.loaders.js';
import { createScoringLoaders } from '../modules/scoring/scoring.scope.js';
import { createOptInLoaders } from '../modules/segments/optins.loaders.js';
import { createSegmentLoaders } from '../modules/segments/segments.loaders.js';
import { createWidgetLoaders } from '../modules/widget/widget.loaders.js';

/**
 * A request's DataLoaders, one group per module. Each group, and each loader in it, is created the
 * first time a field asks for it; a module declares its loaders in its *.loaders.ts and adds one
 * line here. The groups become core's `Loaders` (core/loaders.ts), which names no module itself.
 */
export function createLoaders(context: Context) {
  return lazily({
    activities: () => createActivityLoaders(context),
    brands: () => createBrandLoaders(context),
    members: () => createMemberLoaders(context),
    optIns: () => createOptInLoaders(context),
    scoring: () => createScoringLoaders(context),
    segments: () => createSegmentLoaders(context),
    widget: () => createWidgetLoaders(context),
  });
}

type LoaderGroups = ReturnType<typeof createLoaders>;

declare module '../core/loaders.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- it adds the groups to core's interface, declaring nothing else
  interface Loaders extends LoaderGroups {}
}
