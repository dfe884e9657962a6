import type { Executor } from '../../db/client.js';
import { auditUserAgentLength } from '../../db/schema/index.js';
import type { Context } from '../../core/context.js';
import type { ApplicationCaller } from '../../core/auth.js';
import { decodeCursor, encodeCursor } from '../../core/connection.js';
import { invalidParameter } from '../../core/errors.js';
import { auditActions, type AuditActor, type AuditEntry, type AuditOrigin } from './audit.actions.js';
import { auditEventsPage, insertAuditEvent, type AuditEventRow, type AuditFilter, type AuditPosition } from './audit.queries.js';

export type { AuditEventRow, AuditFilter } from './audit.queries.js';
export type { AuditAction, AuditActor, AuditEntry, AuditOrigin, AuditTarget } from './audit.actions.js';

/** The most entries one page of the log holds. */
export const maxAuditPage = 200;

/** Bounds on what the request gives (header values, labels): the log never stores an unbounded value. */
const maxLabel = 200;
const maxAddress = 64;
const maxRequestId = 128;

const clip = (value: string | undefined, length: number) => (value === undefined ? null : value.slice(0, length));

/**
 * Writes one entry of the log, in the caller's transaction when given one (so the entry exists if
 * and only if the change does). The entry names the fan by member id alone; `details` hold names,
 * counts and ids, never a fan's personal data.
 */
export async function recordAudit(db: Executor, accountId: number, origin: AuditOrigin, entry: AuditEntry): Promise<void> {
  const { actor } = origin;
  await insertAuditEvent(db, {
    accountId,
    actorType: actor.type,
    actorId: actor.type === 'system' ? null : actor.id,
    actorLabel: actor.label.slice(0, maxLabel),
    action: entry.action,
    targetType: entry.target?.type ?? null,
    targetId: entry.target?.id ?? null,
    outcome: entry.outcome ?? 'success',
    details: entry.details ?? {},
    ip: clip(origin.ip, maxAddress),
    userAgent: clip(origin.userAgent, auditUserAgentLength),
    requestId: clip(origin.requestId, maxRequestId),
  });
}

/**
 * recordAudit for a scope that may carry an origin (MemberScope's `audit`): a change made with an
 * API key (or by staff) is recorded; the same change made by the fan on the hosted pages, whose
 * scope has no origin, is the fan's own and is not.
 */
export async function recordScopeAudit(db: Executor, scope: { accountId: number; audit?: AuditOrigin }, entry: AuditEntry): Promise<void> {
  if (scope.audit) await recordAudit(db, scope.accountId, scope.audit, entry);
}

/** The audit target of a fan: their member id, never anything personal. */
export const fanTarget = (memberId: number) => ({ type: 'fan', id: String(memberId) }) as const;

/** Who acts through the public API: the calling application's key, with the request's address and id. */
export function auditOriginOf(context: Pick<Context, 'requestId' | 'clientAddress' | 'userAgent'>, caller: ApplicationCaller): AuditOrigin {
  return { actor: apiKeyActor(caller), ip: context.clientAddress, userAgent: context.userAgent, requestId: context.requestId };
}

export function apiKeyActor(caller: Pick<ApplicationCaller, 'keyId' | 'applicationName'>): AuditActor {
  return { type: 'api_key', id: caller.keyId, label: caller.applicationName };
}

/**
 * One change of the calling application's settings through the public API, recorded as
 * `application.settings` naming the setting (never its value: a template or a secret may be one).
 */
export function recordSettingsChange(context: Pick<Context, 'requestId' | 'clientAddress' | 'userAgent' | 'database'>, caller: ApplicationCaller, setting: string): Promise<void> {
  return recordAudit(context.database.db, caller.accountId, auditOriginOf(context, caller), {
    action: 'application.settings',
    target: { type: 'application', id: String(caller.applicationId) },
    details: { setting },
  });
}

/** The gateway itself acting: a CLI command (`cli`) or a job. */
export function systemOrigin(label: string): AuditOrigin {
  return { actor: { type: 'system', label } };
}

export interface AuditPage {
  events: AuditEventRow[];
  /** Each event's cursor, in the same order. */
  cursors: string[];
  hasNextPage: boolean;
  endCursor?: string;
}

const actorTypes = new Set<string>(['staff', 'api_key', 'system']);
const targetTypes = new Set<string>(['fan', 'staff', 'key', 'application', 'segment', 'account']);

const isPosition = (value: Record<string, unknown>): value is AuditPosition & Record<string, unknown> =>
  Object.keys(value).length === 2 && typeof value.us === 'string' && /^-?\d{1,20}$/.test(value.us) && Number.isSafeInteger(value.id);

/**
 * A page of an account's log, newest first (by time, then id), narrowed by `filter`. `first` is
 * 1 to 200 (more is cut to 200); `after` is an earlier page's `endCursor`. Errors name the argument
 * (`first`, `after`, `action`, `actorType`, `targetType`, `from`).
 */
export async function listAuditEvents(db: Executor, accountId: number, filter: AuditFilter, page: { first: number; after?: string }): Promise<AuditPage> {
  if (!Number.isInteger(page.first) || page.first < 1) throw invalidParameter('first', 'expected at least 1 entry');
  const limit = Math.min(page.first, maxAuditPage);
  if (filter.action !== undefined && !Object.hasOwn(auditActions, filter.action)) throw invalidParameter('action', `expected one of ${Object.keys(auditActions).join(', ')}`);
  if (filter.actorType !== undefined && !actorTypes.has(filter.actorType)) throw invalidParameter('actorType', 'expected staff, api_key or system');
  if (filter.targetType !== undefined && !targetTypes.has(filter.targetType)) throw invalidParameter('targetType', `expected one of ${[...targetTypes].join(', ')}`);
  if (filter.actorId !== undefined && !Number.isSafeInteger(filter.actorId)) throw invalidParameter('actorId', 'expected an id');
  if (filter.targetId !== undefined && filter.targetId.length > 64) throw invalidParameter('targetId', 'at most 64 characters');
  for (const [name, date] of [
    ['from', filter.from],
    ['to', filter.to],
  ] as const) {
    if (date !== undefined && Number.isNaN(date.getTime())) throw invalidParameter(name, 'expected a date');
  }
  if (filter.from && filter.to && filter.from > filter.to) throw invalidParameter('from', 'the start is after the end');
  const after = decodeCursor(page.after, 'after', isPosition);
  const rows = await auditEventsPage(db, accountId, filter, after && { us: after.us, id: after.id }, limit + 1);
  const shown = rows.slice(0, limit);
  const cursors = shown.map((entry) => encodeCursor({ us: entry.us, id: entry.row.id }));
  return {
    events: shown.map((entry) => entry.row),
    cursors,
    hasNextPage: rows.length > limit,
    endCursor: cursors.at(-1),
  };
}
