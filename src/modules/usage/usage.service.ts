import type { Executor } from '../../db/client.js';
import type { Period } from '../../filters/window.js';
import { invalidParameter, missingParameter } from '../../core/errors.js';
import { bucketStarts, shiftByPeriod, truncate, type TruncateUnit } from '../../lib/time.js';
import { applicationsInScope, hitsPerBucket } from './usage.queries.js';
import { UsageInterval, UsageScope, type Usage, type UsageBucket } from './usage.types.js';

/** The interface's limits: the longest range per interval, and how far back hits are kept. */
const intervalRules: Record<UsageInterval, { unit: TruncateUnit; max: Period; maxText: string }> = {
  [UsageInterval.HOUR]: { unit: 'hour', max: { amount: 7, unit: 'DAY' }, maxText: '7 days' },
  [UsageInterval.DAY]: { unit: 'day', max: { amount: 90, unit: 'DAY' }, maxText: '90 days' },
  [UsageInterval.MONTH]: { unit: 'month', max: { amount: 12, unit: 'MONTH' }, maxText: '12 months' },
};
/** Hits older than this are deleted by the meter and never reported. */
export const usageRetention: Period = { amount: 12, unit: 'MONTH' };

export interface UsageRequest {
  interval: UsageInterval;
  start: Date;
  end?: Date | null;
  period?: Period | null;
  scope: UsageScope;
}

export interface UsageCaller {
  accountId: number;
  /** Absent for the global key, which always sees the whole account. */
  applicationId?: number;
}

export interface UsageRange {
  start: Date;
  end: Date;
  /** Set when the range asked for was longer than the interval covers and was cut to that. */
  notice: string | null;
}

export function resolveUsageRange(request: UsageRequest, now = new Date()): UsageRange {
  const rules = intervalRules[request.interval];
  if (request.period && request.period.unit === 'WEEK') {
    throw invalidParameter('period', 'expected a number followed by hour, day or month');
  }
  const asked = request.end ?? (request.period ? shiftByPeriod(request.start, request.period.amount, request.period.unit) : undefined);
  if (!asked) throw missingParameter('end', "Either 'end_date' or 'period' is required.");
  if (asked <= request.start) throw invalidParameter('end', 'the range must end after start_date');
  // A longer range than the interval covers is cut to its maximum, as the old interface did, and the
  // response says so instead of refusing the call.
  const longest = shiftByPeriod(request.start, rules.max.amount, rules.max.unit);
  const end = longest < asked ? longest : asked;
  const notice = end === asked ? null : `The range was cut to ${rules.maxText} after start_date: interval ${request.interval.toLowerCase()} covers at most ${rules.maxText}.`;
  // Hits are kept for a year: earlier buckets would only ever be zero, so the range starts there.
  const oldest = truncate(shiftByPeriod(now, -usageRetention.amount, usageRetention.unit), 'day');
  const start = request.start < oldest ? oldest : request.start;
  if (start >= end) throw invalidParameter('start', 'usage is kept for one year; the range ends before that');
  return { start, end, notice };
}

export async function readUsage(db: Executor, caller: UsageCaller, request: UsageRequest, now = new Date()): Promise<Usage> {
  const { start, end, notice } = resolveUsageRange(request, now);
  const { unit } = intervalRules[request.interval];
  const applicationId = request.scope === UsageScope.APP ? caller.applicationId : undefined;
  const [apps, rows] = await Promise.all([
    applicationsInScope(db, caller.accountId, applicationId),
    hitsPerBucket(db, { accountId: caller.accountId, applicationId, start: truncate(start, unit), end, unit }),
  ]);
  const starts = bucketStarts(start, end, unit);
  const hitsOf = new Map(rows.map((row) => [`${row.applicationId}:${row.bucket.getTime()}`, row.hits]));
  const applications = apps.map((app) => {
    const buckets: UsageBucket[] = starts.map((at) => ({ start: at, hits: hitsOf.get(`${app.id}:${at.getTime()}`) ?? 0 }));
    return { applicationId: app.id, name: app.name, hits: total(buckets), buckets };
  });
  const buckets = starts.map((at, index) => ({
    start: at,
    hits: applications.reduce((sum, app) => sum + app.buckets[index].hits, 0),
  }));
  return { start, end, timezone: 'UTC', interval: request.interval, clamped: notice !== null, notice, hits: total(buckets), buckets, applications };
}

function total(buckets: UsageBucket[]): number {
  return buckets.reduce((sum, bucket) => sum + bucket.hits, 0);
}
