import DataLoader from 'dataloader';
import type { Context } from '../../core/context.js';
import { applicationCaller } from '../../core/auth.js';
import { lazily } from '../../lib/batching.js';
import { findApplication } from '../tenancy/tenancy.queries.js';

export type WidgetLoaders = ReturnType<typeof createWidgetLoaders>;

/** The widget's per-request loaders (context.loaders.widget). */
export function createWidgetLoaders(context: Context) {
  return lazily({
    /** The calling application's settings, read once per request whichever fields ask. */
    settings: () =>
      new DataLoader(async (ids: readonly number[]) => {
        const caller = applicationCaller(context);
        return Promise.all(ids.map(async (id) => (await findApplication(context.database.db, caller.accountId, id))?.settings ?? {}));
      }),
  });
}
