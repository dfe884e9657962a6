import { date, index, integer, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './tenancy.js';

/**
 * The standard windows an account's per-member totals are kept for (one row per window, see
 * `src/modules/score-windows/score-windows.ts` for the ids): the totals count the repeatable
 * records that completed in [covered_from, covered_until). A worker moves both ends forward; a ranking corrects
 * the few records between these ends and its own window's.
 */
export const scoreWindows = pgTable(
  'score_windows',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    windowId: smallint('window_id').notNull(),
    coveredFrom: timestamp('covered_from', { withTimezone: true, precision: 6 }).notNull(),
    coveredUntil: timestamp('covered_until', { withTimezone: true, precision: 6 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.windowId] })],
);

/**
 * How far a worker may be moving an account's windows now (`src/modules/scoring/score-windows.worker.ts`):
 * before it folds records into the totals it claims the stretch it will cover, up to
 * `claimed_until`, in a transaction of its own. A record stored without the coverage lock (one
 * statement, which holds this row `for share`: recordGate in src/modules/kept-data/kept-writes.ts)
 * must complete at or after the claim, so the fold's snapshot always holds it; earlier records go through a transaction that waits for the fold.
 * Claims only grow; coverage never passes its account's claim.
 */
export const scoreWindowClaims = pgTable('score_window_claims', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  claimedUntil: timestamp('claimed_until', { withTimezone: true, precision: 6 }).notNull(),
});

/**
 * Each member's points and records in a standard window, over every brand (`brand_id` 0) and per
 * brand. Members without records in the window have no row, so the rows are the active members.
 */
export const scoreWindowTotals = pgTable(
  'score_window_totals',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    windowId: smallint('window_id').notNull(),
    brandId: integer('brand_id').notNull(),
    // No foreign key to members: its key-share locks would make the totals worker wait on merges.
    // Deleting a member takes its totals out first (score-windows.queries.ts), counts included.
    memberId: integer('member_id').notNull(),
    points: integer('points').notNull(),
    activityCount: integer('activity_count').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.windowId, t.brandId, t.memberId] }),
    // A ranking reads this index in order and stops after its page (plus the members its window's edges change).
    index('score_window_totals_ranking_idx').on(t.accountId, t.windowId, t.brandId, t.points.desc(), t.memberId, t.activityCount),
  ],
);

/** How many members have a row in `score_window_totals` per window and brand: `totalmembercount` without a scan. */
export const scoreWindowCounts = pgTable(
  'score_window_counts',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    windowId: smallint('window_id').notNull(),
    brandId: integer('brand_id').notNull(),
    members: integer('members').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.windowId, t.brandId] })],
);

/**
 * A brand's active members in a standard window, grouped by one member attribute (`dimension`:
 * country, gender or birth date; `key` '' when the profile has none), with their records: the
 * brand reports without a scan of the members. Kept with the per-brand totals, in the same
 * statements, and moved when a member's attribute changes. Birth dates rather than age ranges,
 * because an age range changes on a birthday and a birth date does not.
 */
export const scoreWindowGroups = pgTable(
  'score_window_groups',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    windowId: smallint('window_id').notNull(),
    brandId: integer('brand_id').notNull(),
    dimension: text('dimension').notNull(),
    key: text('key').notNull(),
    members: integer('members').notNull(),
    activityCount: integer('activity_count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.windowId, t.brandId, t.dimension, t.key] })],
);

/**
 * Each member's records in a standard window per brand (never 0), activity and network (`service`
 * '' when the record has none): what the activity and timeline reports count distinct members
 * over. Kept in the same transactions as the per-brand totals; the groups of the dimensions
 * activity, type and service (`score_window_groups`) are made from these rows.
 */
export const scoreWindowActivityTotals = pgTable(
  'score_window_activity_totals',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    windowId: smallint('window_id').notNull(),
    brandId: integer('brand_id').notNull(),
    // No foreign keys to members or activities, for the reason given on score_window_totals.
    memberId: integer('member_id').notNull(),
    activityId: integer('activity_id').notNull(),
    service: text('service').notNull(),
    activityCount: integer('activity_count').notNull(),
  },
  (t) => [primaryKey({ name: 'score_window_activity_totals_pk', columns: [t.accountId, t.windowId, t.brandId, t.memberId, t.activityId, t.service] })],
);

/**
 * Each whole UTC day's repeatable records per brand and network (`service` '' when none) and the
 * distinct members behind them: the timeline report's days without a scan of the daily rollup.
 * Made from `member_activity_daily` by the score windows worker once a day has ended; the days made
 * are listed in `timeline_days_kept`, and a later change to the rollup of such a day (a late or
 * deleted record, a merge) lists it in `timeline_days_stale` until the worker makes it again
 * (a trigger on the rollup, see drizzle/0015_timeline_days_trigger.sql). Readers take a day from
 * here only when it is kept and not stale.
 */
export const timelineDays = pgTable(
  'timeline_days',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    brandId: integer('brand_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    service: text('service').notNull(),
    records: integer('records').notNull(),
    members: integer('members').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.brandId, t.day, t.service] })],
);

export const timelineDaysKept = pgTable(
  'timeline_days_kept',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
);

export const timelineDaysStale = pgTable(
  'timeline_days_stale',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
);
