import DataLoader from 'dataloader';
import { accountOf } from '../../core/auth.js';
import type { Context } from '../../core/context.js';
import { groupByKey, indexByKey } from '../../lib/batching.js';
import { compileFilter, type CompiledFilter } from '../../filters/compile.js';
import { isDefaultFilter, isDefaultWindow } from '../../filters/filter-args.js';
import type { MemberFilter } from '../../filters/member-filter.types.js';
import { resolveWindow, type ResolvedWindow, type WindowRules } from '../../filters/window.js';
import type { WindowInput } from '../../filters/window.types.js';
import type { RecordRow } from '../activities/activities.queries.js';
import { countMemberRecords, memberRecordPages, type KeyedRecordRow, type MemberPageRequest } from '../activities/feed.queries.js';
import { lastRecordsOf, scoresOf } from './scoring.queries.js';

/** A compiled filter with its window: what a score, a ranking or a feed is computed under. */
export interface ScoringScope {
  filter: CompiledFilter;
  window: ResolvedWindow;
}

export interface ScoreValue {
  points: number;
  activityCount: number;
}

/** The loaders of one scope: the members of a page asking under the same scope share each of them. */
export interface ScopeLoaders {
  /** Scores of a page's members, in one query; a listing ranked by score primes it. */
  score: DataLoader<number, ScoreValue>;
  /** The latest record of each member of a page, in one query. */
  lastRecord: DataLoader<number, RecordRow | null>;
  /** How many records each member has in a list (Member.activities' totalCount), in one query per list. */
  recordCount(list: MemberRecordList): DataLoader<number, number>;
  /** A page of each member's records (Member.activities), each after its own place; one loader per page shape. */
  recordPage(page: MemberRecordList & { limit: number; direction: 'ASC' | 'DESC' }): DataLoader<MemberPageRequest, KeyedRecordRow[], string>;
}

/** The records of Member.activities' list: its window (the first page's, on a page continued by cursor) and, continued, the first page's time. */
export interface MemberRecordList {
  window: ResolvedWindow;
  recordedBy?: Date;
}

const listKey = (list: MemberRecordList) => `${list.window.start.getTime()}:${list.window.end.getTime()}:${list.recordedBy?.getTime() ?? ''}`;

export type ScoringLoaders = ReturnType<typeof createScoringLoaders>;

/** A filter and window compiled for the caller's account, the window resolved at `now`. */
export async function compileScope(context: Context, filter: MemberFilter | null | undefined, window: WindowInput | null | undefined, rules: WindowRules, now = new Date()): Promise<ScoringScope> {
  const resolved = resolveWindow(window, rules, now);
  return { filter: await compileFilter(context.database.db, accountOf(context), filter, resolved), window: resolved };
}

/** The scoring module's per-request scopes and their loaders (context.loaders.scoring). */
export function createScoringLoaders(context: Context) {
  // Keyed by the arguments as written: equal arguments on many members compile once.
  const scopes = new Map<string, Promise<ScoringScope>>();
  const loaders = new Map<ScoringScope, ScopeLoaders>();
  return {
    /**
     * The scope of a filter and window, compiled once per request and arguments: the members of a
     * page asking for `score(filter: …)` with the same arguments share one scope and its loaders.
     */
    scope(filter: MemberFilter | null | undefined, window: WindowInput | null | undefined, rules: WindowRules): Promise<ScoringScope> {
      // A filter or window with nothing set compiles as one left out: they share a scope.
      const key = JSON.stringify([isDefaultFilter(filter) ? null : filter, isDefaultWindow(window) ? null : window, rules]);
      let scope = scopes.get(key);
      if (!scope) {
        scope = compileScope(context, filter, window, rules);
        scopes.set(key, scope);
      }
      return scope;
    },
    /** The loaders of a scope this request compiled (or a listing built), made on first use. */
    of(scope: ScoringScope): ScopeLoaders {
      let found = loaders.get(scope);
      if (!found) loaders.set(scope, (found = createScopeLoaders(context, scope)));
      return found;
    },
  };
}

function createScopeLoaders(context: Context, scope: ScoringScope): ScopeLoaders {
  let score: ScopeLoaders['score'] | undefined;
  let lastRecord: ScopeLoaders['lastRecord'] | undefined;
  const counts = new Map<string, DataLoader<number, number>>();
  const pages = new Map<string, DataLoader<MemberPageRequest, KeyedRecordRow[], string>>();
  const db = () => context.database.db;
  return {
    get score() {
      return (score ??= new DataLoader(async (ids: readonly number[]) => {
        const rows = await scoresOf(db(), scope.filter, scope.window, ids);
        return indexByKey(ids, rows, (row) => row.memberId).map((row) => row ?? { points: 0, activityCount: 0 });
      }));
    },
    get lastRecord() {
      return (lastRecord ??= new DataLoader(async (ids: readonly number[]) => {
        const rows = await lastRecordsOf(db(), scope.filter, scope.window, ids);
        // The definitions came with the records: the page's activity names cost no further query.
        const definitions = context.loaders.activities.definitions;
        for (const row of rows) definitions.prime(row.definition.id, row.definition);
        return groupByKey(ids, rows, (row) => row.record.memberId).map((group) => group[0]?.record ?? null);
      }));
    },
    recordCount(list) {
      const key = listKey(list);
      let loader = counts.get(key);
      if (!loader) {
        loader = new DataLoader(async (ids: readonly number[]) => {
          const rows = await countMemberRecords(db(), scope.filter, list.window, ids, list.recordedBy);
          return indexByKey(ids, rows, (row) => row.memberId).map((row) => row?.count ?? 0);
        });
        counts.set(key, loader);
      }
      return loader;
    },
    recordPage(page) {
      const key = `${page.limit}:${page.direction}:${listKey(page)}`;
      let loader = pages.get(key);
      if (!loader) {
        loader = new DataLoader(
          async (requests: readonly MemberPageRequest[]) => {
            const rows = await memberRecordPages(db(), scope.filter, page.window, requests, page);
            // Members asking from different places share the statement: each request has its own rows.
            return groupByKey(
              requests.map((_, index) => index),
              rows,
              (row) => row.request,
            );
          },
          { cacheKeyFn: (request) => `${request.memberId}:${request.after?.key ?? ''}:${request.after?.id ?? ''}` },
        );
        pages.set(key, loader);
      }
      return loader;
    },
  };
}

/** Shorthand for `context.loaders.scoring.scope(…)`, as the listings call it. */
export function scopeFor(context: Context, filter: MemberFilter | null | undefined, window: WindowInput | null | undefined, rules: WindowRules): Promise<ScoringScope> {
  return context.loaders.scoring.scope(filter, window, rules);
}

/** Shorthand for `context.loaders.scoring.of(scope).score`, as the listings prime it. */
export function scoreLoader(context: Context, scope: ScoringScope): DataLoader<number, ScoreValue> {
  return context.loaders.scoring.of(scope).score;
}
