import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../core/context.js';
import { askedArguments } from '../../core/selection.js';
import { isDefaultFilter, isDefaultWindow } from '../../filters/filter-args.js';
import type { MemberFilter } from '../../filters/member-filter.types.js';
import type { WindowInput } from '../../filters/window.types.js';
import { memberWindow } from '../../filters/window.js';
import type { BesideMember, ReadWith } from '../members/members.queries.js';
import { memberFigureColumns, readMemberFigures } from './scoring.queries.js';
import type { ScoringScope } from './scoring.scope.js';

/** What member(id) reads of its figures with the member, under the scope its fields default to. */
export interface MemberFiguresRead {
  scope: ScoringScope;
  beside: BesideMember;
}

/**
 * member(id)'s score and latest record, read in the member's own statement when its selection asks
 * for `score`, `position`, `rank` or `lastActivity` with their defaults (the week to now, every record of
 * the account): each would otherwise send a statement of its own, and on a Citus cluster every
 * statement costs the coordinator's planning and a worker's round trip (docs/scaling.md). The
 * scope is the one those fields compile (`context.loaders.scoring.scope`), so they find what was
 * read through its loaders (`primeMemberFigures`). Undefined when nothing asks for them.
 */
export async function memberFiguresOf(context: Context, info: GraphQLResolveInfo): Promise<MemberFiguresRead | undefined> {
  const withDefaults = (field: string) => askedArguments(info, field).some(underDefaults);
  const score = withDefaults('score') || withDefaults('position') || withDefaults('rank');
  const lastRecord = withDefaults('lastActivity');
  if (!score && !lastRecord) return undefined;
  const scope = await context.loaders.scoring.scope(null, null, memberWindow);
  // findMember's statement: $1 the account, $2 the id, the figures' values after them.
  return { scope, beside: memberFigureColumns(scope.filter, scope.window, { score, lastRecord }, 3) };
}

/** Arguments that leave a figure under its defaults: a filter and a window that say nothing, and no other. */
function underDefaults({ filter, window, ...others }: Record<string, unknown>): boolean {
  return isDefaultFilter(filter as MemberFilter) && isDefaultWindow(window as WindowInput) && Object.keys(others).length === 0;
}

/** Hands what the member's statement read (`readWith.beside`) to the scope's loaders, as if they had read it. */
export function primeMemberFigures(context: Context, { scope }: MemberFiguresRead, memberId: number, read: ReadWith['beside']): void {
  if (!read) return;
  const { score, lastRecord } = readMemberFigures(read);
  const loaders = context.loaders.scoring.of(scope);
  if (score) loaders.score.prime(memberId, score);
  if (lastRecord !== undefined) {
    loaders.lastRecord.prime(memberId, lastRecord?.record ?? null);
    if (lastRecord) context.loaders.activities.definitions.prime(lastRecord.definition.id, lastRecord.definition);
  }
}
