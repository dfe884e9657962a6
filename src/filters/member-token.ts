import type { Caller } from '../core/context.js';
import { AppError } from '../core/errors.js';
import type { MemberFilter } from './member-filter.types.js';

/**
 * Filter fields that name other members. A member's token reads its own member only, so under
 * such a filter its `position` (how many members are ahead) would tell whether an address or an
 * id belongs to a member more active than itself: with a member's token they are refused.
 */
const foreignMemberFields = ['emails', 'memberIds', 'excludeMemberIds'] as const satisfies readonly (keyof MemberFilter)[];

export function assertMemberTokenFilter(caller: Caller, filter: MemberFilter | null | undefined): void {
  if (caller.kind !== 'member' || !filter) return;
  const named = foreignMemberFields.find((field) => filter[field] !== undefined && filter[field] !== null);
  if (named) throw new AppError('WRONG_APPLICATION', `A member token cannot filter by other members (${named}); use an API key.`, named);
}
