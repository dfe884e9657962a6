import type { Context } from '../../core/context.js';
import { AppError, invalidParameter, notFound } from '../../core/errors.js';
import { InputErrors, withUserErrors, type InputProblem } from '../../core/user-errors.js';
import type { Executor } from '../../db/client.js';
import type { SelfServiceLists } from '../../db/schema/index.js';
import { filterId } from '../../filters/compile.js';
import { findBrandsByIds } from '../brands/brands.queries.js';
import { requireViewer } from '../members/viewer.js';
import type { OptInList } from './optins.queries.js';
import { listRefField, optInMember, optOutMember, resolveListRef } from './optins.service.js';
import type { OptInListRef } from './optins.types.js';
import { saveSelfServiceLists, selfServiceListsOf } from './self-service-lists.queries.js';
import type { SelfServiceListsInput } from './self-service-lists.types.js';
import { findSegmentsByIds } from './segments.queries.js';

/**
 * Self-service lists (docs/members.md, "Member JWT"): the brand lists, list segments and global
 * list an application opens to its fans' own front end, where a member JWT opts its member in and
 * out (viewerOptIn, viewerOptOut). None is open until the application (its API key) names them:
 * a segment may be a label's own targeting, a brand list a status it grants, and a page holding a
 * fan's token must not be able to change them.
 */

/** The most brands, and the most segments, one application opens to fans. */
export const maxSelfServiceLists = 100;

const none: SelfServiceLists = { global: false, brandIds: [], segmentIds: [] };

export async function readSelfServiceLists(db: Executor, accountId: number, applicationId: number): Promise<SelfServiceLists> {
  return (await selfServiceListsOf(db, accountId, applicationId)) ?? none;
}

/**
 * The ids of one list of the input, each a number: every malformed one, and a list too long, is a
 * problem at its path (["input", "brandIds", "2"]). Repeats count once.
 */
function readIds(values: readonly string[], field: 'brandIds' | 'segmentIds', problems: InputProblem[]): Map<number, number> {
  const ids = new Map<number, number>();
  if (values.length > maxSelfServiceLists) {
    problems.push({ path: ['input', field], error: invalidParameter(field, `expected at most ${maxSelfServiceLists} ids, got ${values.length}`) });
    return ids;
  }
  values.forEach((value, index) => {
    try {
      const id = filterId(value, field);
      if (id === undefined) throw invalidParameter(field, 'expected an id');
      if (!ids.has(id)) ids.set(id, index);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      problems.push({ path: ['input', field, String(index)], error });
    }
  });
  return ids;
}

/**
 * The lists of the input, checked against the account (every problem at once, each at its
 * path; a brand or segment of another account is not found, as an id of nothing is) and stored in
 * place of the ones before.
 */
export function setSelfServiceLists(db: Executor, accountId: number, applicationId: number, input: SelfServiceListsInput) {
  return withUserErrors(async () => {
    const problems: InputProblem[] = [];
    const brandIds = readIds(input.brandIds, 'brandIds', problems);
    const segmentIds = readIds(input.segmentIds, 'segmentIds', problems);
    const [brands, segments] = await Promise.all([
      brandIds.size ? findBrandsByIds(db, accountId, [...brandIds.keys()]) : [],
      segmentIds.size ? findSegmentsByIds(db, accountId, [...segmentIds.keys()]) : [],
    ]);
    const liveBrands = new Set(brands.map((row) => row.id));
    const segmentKinds = new Map(segments.map((row) => [row.id, row.kind]));
    for (const [id, index] of brandIds) {
      if (!liveBrands.has(id)) problems.push({ path: ['input', 'brandIds', String(index)], error: notFound(`Brand ${id}`, 'brandIds') });
    }
    for (const [id, index] of segmentIds) {
      const kind = segmentKinds.get(id);
      if (kind === undefined) problems.push({ path: ['input', 'segmentIds', String(index)], error: notFound(`Segment ${id}`, 'segmentIds') });
      else if (kind !== 'list')
        problems.push({ path: ['input', 'segmentIds', String(index)], error: invalidParameter('segmentIds', `segment ${id} is a FILTER segment; fans opt into list segments only`) });
    }
    if (problems.length) throw new InputErrors(problems.sort((a, b) => a.path.join('\u0000').localeCompare(b.path.join('\u0000'), 'en', { numeric: true })));
    const lists: SelfServiceLists = { global: input.global, brandIds: [...brandIds.keys()], segmentIds: [...segmentIds.keys()] };
    await saveSelfServiceLists(db, accountId, applicationId, lists);
    return lists;
  });
}

/** The one answer for a list a fan may not use, whether or not it exists: no fan learns which ids the account has. */
const notOpen = (field: string) => new AppError('NOT_FOUND', 'No list open to fans here has this id.', field);

/**
 * The list a fan names, when the application opens it to fans and it still exists (a live brand, a
 * list segment); otherwise NOT_FOUND at the ref's field, the same for a list that is closed, gone
 * or another account's. `global: false` is INVALID, as memberOptIn answers it.
 */
async function openList(db: Executor, accountId: number, open: SelfServiceLists, ref: OptInListRef): Promise<OptInList> {
  const field = listRefField(ref);
  const id = field === 'global' ? undefined : filterId(ref[field], field);
  const allowed = field === 'global' ? ref.global !== true || open.global : field === 'brandId' ? open.brandIds.includes(id!) : open.segmentIds.includes(id!);
  if (!allowed) throw notOpen(field);
  try {
    return await resolveListRef({ db, accountId }, ref);
  } catch (error) {
    if (error instanceof AppError && field !== 'global' && ['NOT_FOUND', 'INVALID_PARAMETER'].includes(error.extensions.code)) throw notOpen(field);
    throw error;
  }
}

/**
 * viewerOptIn and viewerOptOut: the signed-in member (after viewer's session check) joins or
 * leaves a list the application opens to fans. Opting out of a list never joined is NOT_FOUND at
 * the list, as memberOptOut answers it. Not written to the audit log: the fan's own choice.
 */
export async function viewerOptInOrOut(context: Context, ref: OptInListRef, direction: 'in' | 'out') {
  const { caller } = await requireViewer(context);
  const scope = { db: context.database.db, accountId: caller.accountId };
  const field = listRefField(ref);
  return withUserErrors(
    async () => {
      const list = await openList(scope.db, scope.accountId, await readSelfServiceLists(scope.db, caller.accountId, caller.applicationId), ref);
      if (direction === 'in') return optInMember(scope, caller.memberId, list);
      const row = await optOutMember(scope, caller.memberId, list);
      if (!row) throw notFound('An opt-in of yours to this list', field);
      return row;
    },
    { params: { [field]: ['list', field] }, fallback: ['list', field] },
  );
}
