/**
 * A request's DataLoaders, one group per module (`context.loaders.members.services`, …): made with
 * the request and dropped with it, so batching and caching never cross requests (or tenants).
 *
 * The kernel names no module. The gateway's wiring (graphql/loaders.ts) lists each module's group
 * from its *.loaders.ts and adds them to this interface by declaration merging, so tsc still checks
 * every `context.loaders.<group>.<loader>` a module reads.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- empty here: the wiring merges each module's group in
export interface Loaders {}
