import type { Database } from '../../db/client.js';
import { filterId } from '../../filters/compile.js';
import { AppError, invalidParameter, missingParameter, throwMissing, notFound } from '../../core/errors.js';
import { InputErrors } from '../../core/user-errors.js';
import { validateAllAsync } from '../../core/user-errors.js';
import { requireBrand } from '../brands/brands.service.js';
import { checkSavedFilter, computeSegmentMembers } from './segment-membership.js';
import * as q from './segments.queries.js';
import type { NewSegmentRow, SegmentRow } from './segments.queries.js';
import { SegmentKind, type Segment, type SegmentInput } from './segments.types.js';

export interface SegmentScope {
  db: Database;
  accountId: number;
}

/** A saved filter is a MemberFilter, not a document store. */
const maxFilterBytes = 16 * 1024;

/** The stored kind, as GraphQL's enum names it. */
function kindOf(row: SegmentRow): SegmentKind {
  return row.kind === 'filter' ? SegmentKind.FILTER : SegmentKind.LIST;
}

export function toSegment(row: SegmentRow): Segment {
  return {
    id: row.id,
    name: row.name,
    label: row.label,
    kind: kindOf(row),
    brandId: row.brandId,
    filter: row.filter,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function requireSegment(db: Database, accountId: number, id: number, param = 'id'): Promise<SegmentRow> {
  const row = await q.findSegment(db, accountId, id);
  if (!row) throw notFound('Segment', param);
  return row;
}

/** A segment members can opt into: filter segments compute their members instead. */
export async function requireListSegment(db: Database, accountId: number, id: number, param: string): Promise<SegmentRow> {
  const row = await requireSegment(db, accountId, id, param);
  if (row.kind !== 'list') throw invalidParameter(param, 'members cannot opt into a filter segment; its members are computed from its filter');
  return row;
}

export async function listSegments(scope: SegmentScope, brandIdValue?: string | null): Promise<SegmentRow[]> {
  const brandId = filterId(brandIdValue, 'brandId');
  if (brandId !== undefined) await requireBrand(scope.db, scope.accountId, brandId, 'brandId');
  return q.listSegments(scope.db, scope.accountId, brandId);
}

export async function createSegment(scope: SegmentScope, input: SegmentInput): Promise<SegmentRow> {
  const kind = input.kind ?? SegmentKind.LIST;
  // Every field is checked (each problem under its input path), in the order REST reports the first.
  const checked = await validateAllAsync(
    {
      name: () => readName(input.name) ?? throwMissing('name'),
      filter: async () => {
        const filter = readFilter(input.filter);
        if (kind === SegmentKind.FILTER && !filter) throw missingParameter('filter', 'A filter segment needs a filter: a JSON object of MemberFilter fields.');
        if (kind === SegmentKind.LIST && filter) throw invalidParameter('filter', 'only filter segments have a filter');
        if (filter) await checkFilter(scope, filter);
        return filter;
      },
      label: () => readLabel(input.label),
      brandId: () => readBrand(scope, input.brandId),
    },
    inputPath,
  );
  const row = await q.insertSegment(scope.db, {
    accountId: scope.accountId,
    name: checked.name,
    label: checked.label ?? null,
    kind,
    brandId: checked.brandId ?? null,
    filter: checked.filter ?? null,
  });
  if (row.kind === 'filter') await computeSegmentMembers(scope.db, scope.accountId, row);
  return row;
}

export async function editSegment(scope: SegmentScope, id: number, input: SegmentInput): Promise<SegmentRow> {
  const current = await requireSegment(scope.db, scope.accountId, id);
  const checked = await validateAllAsync(
    {
      name: () => (input.name === undefined ? undefined : (readName(input.name) ?? throwInvalid('name', 'a segment needs a name'))),
      label: () => (input.label === undefined ? undefined : (readLabel(input.label) ?? null)),
      kind: () => {
        if (input.kind !== undefined && input.kind !== null && input.kind !== kindOf(current)) throw invalidParameter('type', 'the kind of a segment is fixed at creation');
      },
      brandId: async () => (input.brandId === undefined ? undefined : ((await readBrand(scope, input.brandId)) ?? null)),
      filter: async () => {
        if (input.filter === undefined) return undefined;
        const filter = readFilter(input.filter);
        if (current.kind === 'list' && filter) throw invalidParameter('filter', 'only filter segments have a filter');
        if (current.kind === 'filter' && !filter) throw invalidParameter('filter', 'a filter segment needs a filter');
        if (filter) await checkFilter(scope, filter);
        return filter ?? null;
      },
    },
    inputPath,
  );
  const values: Partial<NewSegmentRow> = {};
  if (checked.name !== undefined) values.name = checked.name;
  if (checked.label !== undefined) values.label = checked.label;
  if (checked.brandId !== undefined) values.brandId = checked.brandId;
  if (checked.filter !== undefined) values.filter = checked.filter;
  const row = await q.updateSegment(scope.db, scope.accountId, id, values);
  if (!row) throw notFound('Segment');
  if (row.kind === 'filter' && values.filter) await computeSegmentMembers(scope.db, scope.accountId, row);
  return row;
}

/** The GraphQL path of a SegmentInput field (user errors). */
const inputPath = (key: string) => ['input', key];

function throwInvalid(param: string, expected: string): never {
  throw invalidParameter(param, expected);
}

/**
 * A saved filter checked against the account; a problem with one of its fields (an unknown
 * brandId, a bad country) is placed under that field, below the input's filter.
 */
async function checkFilter(scope: SegmentScope, filter: Record<string, unknown>): Promise<void> {
  try {
    await checkSavedFilter(scope.db, scope.accountId, filter);
  } catch (error) {
    const param = error instanceof AppError ? error.extensions.param : null;
    if (!(error instanceof AppError) || error instanceof InputErrors || param === null || param === 'filter') throw error;
    throw new InputErrors([{ path: [param], error }]);
  }
}

/** Soft delete: opt-in history stays; the segment is not found any more and takes no opt-ins. */
export async function deleteSegment(scope: SegmentScope, id: number): Promise<boolean> {
  if (!(await q.softDeleteSegment(scope.db, scope.accountId, id))) throw notFound('Segment');
  return true;
}

function readName(value: string | null | undefined): string | undefined {
  const name = value?.trim();
  if (!name) return undefined;
  if (name.length > 200) throw invalidParameter('name', 'at most 200 characters');
  return name;
}

function readLabel(value: string | null | undefined): string | undefined {
  const label = value?.trim();
  if (label && label.length > 200) throw invalidParameter('label', 'at most 200 characters');
  return label || undefined;
}

async function readBrand(scope: SegmentScope, value: string | null | undefined): Promise<number | undefined> {
  const brandId = filterId(value, 'brandId');
  if (brandId !== undefined) await requireBrand(scope.db, scope.accountId, brandId, 'brandId');
  return brandId;
}

/**
 * Stored as given; evaluating it is the filter compiler's work, which computes the members into
 * segment_members. Here it only has to be a JSON object of reasonable size.
 */
function readFilter(value: Record<string, unknown> | null | undefined): Record<string, unknown> | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParameter('filter', 'expected a JSON object');
  if (Buffer.byteLength(JSON.stringify(value)) > maxFilterBytes) throw invalidParameter('filter', `at most ${maxFilterBytes / 1024} KiB`);
  return value;
}
