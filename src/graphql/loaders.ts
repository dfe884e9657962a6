import DataLoader from 'dataloader';
import type { Context } from './context.js';

/**
 * Declares a per-request DataLoader next to the queries it batches. The loader is created the first
 * time a request asks for it and dropped with the request, so batching and caching never cross
 * requests (or tenants). Modules declare their own; nothing central needs to list them.
 */
export function defineLoader<K, V, C = K>(
  create: (context: Context) => DataLoader<K, V, C>,
): (context: Context) => DataLoader<K, V, C> {
  const token = Symbol('loader');
  return (context) => {
    let loader = context.loaderCache.get(token) as DataLoader<K, V, C> | undefined;
    if (!loader) {
      loader = create(context);
      context.loaderCache.set(token, loader);
    }
    return loader;
  };
}

/** Orders grouped rows by the keys DataLoader asked for; missing keys get an empty list. */
export function groupByKey<K, R>(keys: readonly K[], rows: readonly R[], keyOf: (row: R) => K): R[][] {
  const groups = new Map<K, R[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return keys.map((key) => groups.get(key) ?? []);
}

/** Orders single rows by the keys DataLoader asked for; missing keys get null. */
export function indexByKey<K, R>(keys: readonly K[], rows: readonly R[], keyOf: (row: R) => K): (R | null)[] {
  const byKey = new Map<K, R>();
  for (const row of rows) byKey.set(keyOf(row), row);
  return keys.map((key) => byKey.get(key) ?? null);
}
