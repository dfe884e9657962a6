import DataLoader from 'dataloader';
import { accountOf } from '../../graphql/auth.js';
import type { Context } from '../../graphql/context.js';
import { groupByKey, indexByKey } from '../../graphql/loaders.js';
import { compileFilter, type CompiledFilter } from '../../filters/compile.js';
import type { MemberFilter } from '../../filters/member-filter.types.js';
import { resolveWindow, type ResolvedWindow, type WindowRules } from '../../filters/window.js';
import type { WindowInput } from '../../filters/window.types.js';
import type { DefinitionRow, RecordRow } from '../activities/activities.queries.js';
import { definitionById } from '../activities/activities.loaders.js';
import { countMemberRecords, memberRecordPages } from '../activities/feed.queries.js';
import { lastRecordsOf, scoresOf } from './scoring.queries.js';

/** A compiled filter with its window: what a score, a ranking or a feed is computed under. */
export interface ScoringScope {
  filter: CompiledFilter;
  window: ResolvedWindow;
}

/**
 * The scope of a filter and window, compiled once per request and arguments: the members of a
 * page asking for `score(filter: …)` with the same arguments share one scope and one loader.
 */
export function scopeFor(context: Context, filter: MemberFilter | null | undefined, window: WindowInput | null | undefined, rules: WindowRules): Promise<ScoringScope> {
  const key = `scope:${JSON.stringify([filter ?? null, window ?? null, rules])}`;
  let scope = context.loaderCache.get(key) as Promise<ScoringScope> | undefined;
  if (!scope) {
    scope = (async () => {
      const resolved = resolveWindow(window, rules);
      return { filter: await compileFilter(context.database.db, accountOf(context), filter, resolved), window: resolved };
    })();
    context.loaderCache.set(key, scope);
  }
  return scope;
}

function loaderOf<V>(context: Context, scope: ScoringScope, kind: string, create: () => DataLoader<number, V>): DataLoader<number, V> {
  let byKind = context.loaderCache.get(scope) as Map<string, unknown> | undefined;
  if (!byKind) context.loaderCache.set(scope, (byKind = new Map()));
  let loader = byKind.get(kind) as DataLoader<number, V> | undefined;
  if (!loader) byKind.set(kind, (loader = create()));
  return loader;
}

export interface ScoreValue {
  points: number;
  activityCount: number;
}

/** Scores of a page's members under one scope, in one query; a listing ranked by score primes it. */
export function scoreLoader(context: Context, scope: ScoringScope): DataLoader<number, ScoreValue> {
  return loaderOf(context, scope, 'score', () =>
    new DataLoader(async (ids: readonly number[]) => {
      const rows = await scoresOf(context.database.db, scope.filter, scope.window, ids);
      return indexByKey(ids, rows, (row) => row.memberId).map((row) => row ?? { points: 0, activityCount: 0 });
    }),
  );
}

/** The latest record of each member of a page under one scope, in one query. */
export function lastRecordLoader(context: Context, scope: ScoringScope): DataLoader<number, RecordRow | null> {
  return loaderOf(context, scope, 'last', () =>
    new DataLoader(async (ids: readonly number[]) => {
      const rows = await lastRecordsOf(context.database.db, scope.filter, scope.window, ids);
      // The definitions came with the records: the page's activity names cost no further query.
      const definitions = definitionById(context);
      for (const row of rows) definitions.prime(row.definition.id, row.definition as DefinitionRow);
      return groupByKey(ids, rows, (row) => row.record.memberId).map((group) => group[0]?.record ?? null);
    }),
  );
}

/**
 * A page of each member's records under one scope (Member.activities): the members of a listing
 * asking for the same page share one query, whatever their number.
 */
export function recordPageLoader(context: Context, scope: ScoringScope, page: { limit: number; offset: number }): DataLoader<number, RecordRow[]> {
  return loaderOf(context, scope, `records:${page.limit}:${page.offset}`, () =>
    new DataLoader(async (ids: readonly number[]) => {
      const rows = await memberRecordPages(context.database.db, scope.filter, scope.window, ids, page);
      return groupByKey(ids, rows, (row) => row.memberId);
    }),
  );
}

/** How many records each member has under one scope (Member.activities' totalCount), in one query. */
export function recordCountLoader(context: Context, scope: ScoringScope): DataLoader<number, number> {
  return loaderOf(context, scope, 'record-count', () =>
    new DataLoader(async (ids: readonly number[]) => {
      const rows = await countMemberRecords(context.database.db, scope.filter, scope.window, ids);
      return indexByKey(ids, rows, (row) => row.memberId).map((row) => row?.count ?? 0);
    }),
  );
}
