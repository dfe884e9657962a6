import { AppError, throwMissing, notFound } from '../../core/errors.js';
import { InputErrors, validateAllAsync } from '../../core/user-errors.js';
import { filterId } from '../../filters/compile.js';
import { lookupMemberByRef, memberRefField } from '../members/member-ref.js';
import type { MemberRef } from '../members/members.types.js';
import * as q from './activities.queries.js';
import type { ActivityRecordInput } from './activities.payloads.js';
import { checkedBrand, inputColumns, recordActivity, type ActivityScope, type RecordOutcome } from './activities.service.js';

/**
 * activityRecord: one record whose member is a MemberRef. Every field is checked first, the
 * definition, the member and the brand looked up, each problem under its input path; only a
 * record whose whole input passed goes to the writer (recordActivity), which checks its lookups
 * again as it stores.
 */
export async function recordActivityOfRef(scope: ActivityScope, input: ActivityRecordInput, now = new Date()): Promise<RecordOutcome> {
  const checked = await validateAllAsync(
    {
      activityId: async () => {
        const id = filterId(input.activityId, 'activityId') ?? throwMissing('activityId');
        const [definition] = await q.definitionsByIds(scope.db, scope.accountId, [id]);
        if (!definition || definition.deletedAt) throw notFound('Activity', 'activityId');
        return id;
      },
      member: () => memberOf(scope, input.member),
      brandId: () => checkedBrand(scope, input.brandId),
      columns: () => inputColumns(input, undefined, now),
    },
    (key) => (key === 'columns' ? ['input'] : ['input', key]),
  );
  // The member is found: the writer takes its id (a record naming its member two ways is refused there).
  return recordActivity(scope, {
    ...input,
    member: undefined,
    activityId: String(checked.activityId),
    memberId: String(checked.member),
    brandId: checked.brandId ? String(checked.brandId) : undefined,
  });
}

/** The member a MemberRef names; a problem is placed under the way it was named (["member", "email"]). */
async function memberOf(scope: ActivityScope, ref: MemberRef): Promise<number> {
  try {
    return (await lookupMemberByRef(scope.db, scope.accountId, ref)).id;
  } catch (error) {
    if (!(error instanceof AppError) || error instanceof InputErrors) throw error;
    throw new InputErrors([{ path: [memberRefField(ref)], error }]);
  }
}
