import { AppError, missingParameter, notFound } from '../../core/errors.js';
import { InputErrors } from '../../core/user-errors.js';
import { validateAllAsync } from '../../core/validate-all-async.js';
import { filterId } from '../../filters/compile.js';
import { lookupMember } from '../members/members.service.js';
import { lookupOfRef, type MemberRef } from '../members/members.types.js';
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
  return recordActivity(scope, {
    ...input,
    activityId: String(checked.activityId),
    memberId: String(checked.member),
    brandId: checked.brandId ? String(checked.brandId) : undefined,
  });
}

/** The member a MemberRef names; a problem is placed under the way it was named (["member", "email"]). */
async function memberOf(scope: ActivityScope, ref: MemberRef): Promise<number> {
  const way = (['id', 'email', 'verifiedEmail', 'partner', 'networkUser'] as const).find((key) => ref[key] !== undefined && ref[key] !== null);
  try {
    return (await lookupMember(scope.db, scope.accountId, lookupOfRef(ref))).id;
  } catch (error) {
    if (!way || !(error instanceof AppError) || error instanceof InputErrors) throw error;
    throw new InputErrors([{ path: [way], error }]);
  }
}

function throwMissing(param: string): never {
  throw missingParameter(param);
}
