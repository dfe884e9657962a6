import { AccountUsageDocument, type AccountUsageQuery, type UsageInterval } from '../../generated/graphql.js';
import { invalidParameter, missingParameter } from '../../core/errors.js';
import { formatDay, formatMonth, formatTimestamp } from '../../lib/time.js';
import { defineRoute } from '../route.js';

/** How each interval names itself and its buckets in the seed's usage response. */
const intervalNames = {
  HOUR: { text: 'per hour', bucket: 'hour', total: 'TotalHitsPerHour', perApp: 'HitsPerHour', label: formatTimestamp },
  DAY: { text: 'per day', bucket: 'day', total: 'TotalHitsPerDay', perApp: 'HitsPerDay', label: formatDay },
  MONTH: { text: 'per month', bucket: 'month', total: 'TotalHitsPerMonth', perApp: 'HitsPerMonth', label: formatMonth },
} as const;

/** A Map, not an object: a caller's `app_scope=__proto__` or `constructor` must miss, not find Object.prototype's members. */
const scopes = new Map<string, 'APP' | 'ACCOUNT'>([
  ['app', 'APP'],
  ['businessunit', 'ACCOUNT'],
]);

export const accountUsageRoute = defineRoute({
  methods: ['GET'],
  path: '/account/usage',
  description:
    "Account usage: hit counts per hour, day or month, for the key's application or (with the global key or `app_scope=businessunit`) every application of the account. An hour interval covers at most 7 days, a day 90 days, a month 12 months.",
  response: 'Usage',
  examples: { interval: 'day', start_date: '2024-01-01 00:00:00', period: '7 days' },
  document: AccountUsageDocument,
  variables(params) {
    const interval = params.requiredString('interval').toUpperCase();
    if (!Object.hasOwn(intervalNames, interval)) throw invalidParameter('interval', 'expected hour, day or month');
    const start = params.timestamp('start_date');
    if (!start) throw missingParameter('start_date');
    const scopeName = (params.string('app_scope') ?? 'app').toLowerCase();
    const scope = scopes.get(scopeName);
    if (!scope) throw invalidParameter('app_scope', 'expected app or businessunit');
    return {
      interval: interval as UsageInterval,
      start,
      end: params.timestamp('end_date'),
      period: params.period('period', ['HOUR', 'DAY', 'MONTH']),
      scope,
    };
  },
  shape({ usage }: AccountUsageQuery) {
    const names = intervalNames[usage.interval];
    // The seed marks TotalHitsForPeriod a number; per-bucket hits follow the rule for counts (strings).
    const buckets = (list: { start: string; hits: number }[]) => list.map((bucket) => ({ [names.bucket]: names.label(new Date(bucket.start)), hits: String(bucket.hits) }));
    return [
      {
        start_date: formatTimestamp(new Date(usage.start)),
        end_date: formatTimestamp(new Date(usage.end)),
        timezone: usage.timezone,
        interval: names.text,
        // Not in the seed: a range longer than the interval covers is cut to it, and this says so.
        clamped: usage.clamped,
        notice: usage.notice,
        hits_total: { TotalHitsForPeriod: usage.hits, [names.total]: buckets(usage.buckets) },
        hits_per_application: usage.applications.map((app) => ({
          ApplicationID: app.applicationId,
          ApplicationName: app.name,
          TotalHitsForPeriod: app.hits,
          [names.perApp]: buckets(app.buckets),
        })),
      },
    ];
  },
});
