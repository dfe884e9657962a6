import type { Executor } from '../../db/client.js';
import { compileFilter } from '../../filters/compile.js';
import { memberWindow, resolveWindow } from '../../filters/window.js';
import { countBeforeByScore, membersAhead, memberPassesFilter, scoresOf } from './scoring.queries.js';
import { rankCap } from './member-listing.js';
import type { ScoreValue, ScoringScope } from './scoring.scope.js';

/**
 * A member's rank by points under a scope: exact below 1000, `999+` beyond; null without activity,
 * or when the filter excludes the member (a rank among members it does not rank). Member.position
 * and the console's fan page both answer this.
 */
export async function memberRank(db: Executor, scope: ScoringScope, memberId: number, score: ScoreValue): Promise<string | null> {
  if (!score.activityCount) return null;
  // The ranking counts only members the filter keeps: a member it excludes has no place in it.
  if (!(await memberPassesFilter(db, scope.filter, memberId))) return null;
  const ahead = await membersAhead(db, scope.filter, scope.window, score.points);
  return ahead >= 999 ? '999+' : String(ahead + 1);
}

/**
 * The rank a member has in the listing by SCORE (descending) under a scope, as MemberEdge.rank
 * gives it there: 1 + the members with more points + those with as many and a lower id. Null when
 * the listing does not hold the member (no counted activity, or the filter excludes it) or ranks
 * it beyond rankCap. Member.rank answers this.
 */
export async function memberRankInListing(db: Executor, scope: ScoringScope, memberId: number, score: ScoreValue): Promise<number | null> {
  if (!score.activityCount) return null;
  if (!(await memberPassesFilter(db, scope.filter, memberId))) return null;
  const before = await countBeforeByScore(db, { filter: scope.filter, window: scope.window, direction: 'DESC', row: { points: score.points, memberId }, cap: rankCap });
  return before >= rankCap ? null : before + 1;
}

/** A member's score and rank under member(id)'s defaults (the week to now, every record of the account). */
export async function memberStanding(db: Executor, accountId: number, memberId: number, now = new Date()): Promise<ScoreValue & { position: string | null; window: { start: Date; end: Date } }> {
  const window = resolveWindow(undefined, memberWindow, now);
  const scope = { filter: await compileFilter(db, accountId, undefined, window), window };
  const [row] = await scoresOf(db, scope.filter, window, [memberId]);
  const score = { points: row?.points ?? 0, activityCount: row?.activityCount ?? 0 };
  return { ...score, position: await memberRank(db, scope, memberId, score), window: { start: window.start, end: window.end } };
}
