/**
 * Helpers for DataLoader batch functions and for the per-request loader object (graphql/loaders.ts).
 * Nothing here knows a module: the modules' *.loaders.ts build their loaders from these.
 */

/**
 * An object whose properties are made on first read and then kept: a request pays only for the
 * loaders (and loader groups) its fields use, while the result stays one plainly typed object.
 */
export function lazily<T extends object>(factories: { [K in keyof T]: () => T[K] }): Readonly<T> {
  const target = {} as T;
  for (const key of Object.keys(factories) as (keyof T & string)[]) {
    Object.defineProperty(target, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = factories[key]();
        Object.defineProperty(target, key, { value, enumerable: true, configurable: false, writable: false });
        return value;
      },
    });
  }
  return target;
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
