import { sql } from 'drizzle-orm';
import { bigint, boolean, date, doublePrecision, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { brands } from './catalogue.js';
import { members } from './members.js';
import { accounts, applications } from './tenancy.js';

/** Where a tracked activity happens: a page, or a track or album on a music network. */
export interface ActivityTracking {
  url?: string;
  trackIds?: string[];
  albumIds?: string[];
}

/**
 * Something members do that the account scores: a listen, a share, a follow. `one_time` marks
 * activities a member performs once (a follow, a like); it is fixed at creation because records
 * and rollups copy it. Deleted definitions keep their row so old records stay readable.
 */
export const activityDefinitions = pgTable(
  'activity_definitions',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    brandId: integer('brand_id'),
    name: text('name').notNull(),
    shortName: text('short_name'),
    type: text('type').notNull(),
    /** The network the activity happens on (`spotify`, `youtube`, …), if any. */
    service: text('service'),
    points: integer('points').notNull().default(1),
    oneTime: boolean('one_time').notNull().default(false),
    tracking: jsonb('tracking').$type<ActivityTracking>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'activity_definitions_pkey', columns: [t.accountId, t.id] }),
    // Brands are only ever soft-deleted, so no action is needed on delete (docs/scaling.md: why not `set null`).
    foreignKey({ name: 'activity_definitions_brand_fk', columns: [t.accountId, t.brandId], foreignColumns: [brands.accountId, brands.id] }),
    index('activity_definitions_account_brand_idx').on(t.accountId, t.brandId),
  ],
);

/**
 * One thing a member did. Points are copied from the definition when recorded, so editing a
 * definition changes future scores, not history. A marker makes a repeat a no-op; a one-time
 * activity is stored at most once per member.
 */
export const activityRecords = pgTable(
  'activity_records',
  {
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    // No key of its own to accounts: the member's key, (account_id, member_id) to members, whose
    // account_id references accounts, already says the account exists and deletes the records with
    // it. Every key is checked row by row on insert, and this one cost ingestion 8 % of its time.
    accountId: integer('account_id').notNull(),
    memberId: integer('member_id').notNull(),
    activityId: integer('activity_id').notNull(),
    brandId: integer('brand_id'),
    service: text('service'),
    applicationId: integer('application_id').references(() => applications.id, { onDelete: 'set null' }),
    marker: text('marker'),
    points: integer('points').notNull(),
    oneTime: boolean('one_time').notNull().default(false),
    link: text('link'),
    media: text('media'),
    category: text('category'),
    content: jsonb('content').$type<Record<string, unknown>>(),
    value: doublePrecision('value'),
    /** Where it happened, from the `ip` it was recorded with (src/lib/geoip.ts); null when unknown. */
    geoCountry: text('geo_country'),
    geoCity: text('geo_city'),
    geoRegion: text('geo_region'),
    geoLat: text('geo_lat'),
    geoLong: text('geo_long'),
    completedAt: timestamp('completed_at', { withTimezone: true }).notNull(),
    recordedAt: timestamp('recorded_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'activity_records_pkey', columns: [t.accountId, t.id] }),
    foreignKey({ name: 'activity_records_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    foreignKey({ name: 'activity_records_activity_fk', columns: [t.accountId, t.activityId], foreignColumns: [activityDefinitions.accountId, activityDefinitions.id] }).onDelete('cascade'),
    foreignKey({ name: 'activity_records_brand_fk', columns: [t.accountId, t.brandId], foreignColumns: [brands.accountId, brands.id] }),
    uniqueIndex('activity_records_account_marker_key')
      .on(t.accountId, t.marker)
      .where(sql`${t.marker} is not null`),
    uniqueIndex('activity_records_account_member_one_time_key')
      .on(t.accountId, t.memberId, t.activityId)
      .where(sql`${t.oneTime}`),
    index('activity_records_account_completed_idx').on(t.accountId, t.completedAt),
    index('activity_records_account_recorded_idx').on(t.accountId, t.recordedAt),
    index('activity_records_account_member_completed_idx').on(t.accountId, t.memberId, t.completedAt),
    // Carries every column a brand's partial days and edge spans read (timeline, corrections, counted
    // rows), so those read the index alone: a brand's day of records is thousands of heap pages otherwise.
    index('activity_records_account_brand_completed_idx').on(t.accountId, t.brandId, t.completedAt, t.memberId, t.oneTime, t.points, t.activityId, t.service),
    index('activity_records_account_activity_completed_idx').on(t.accountId, t.activityId, t.completedAt),
  ],
);

/**
 * Daily totals per member, brand, activity and service, kept in the same transaction as the
 * records: scores and statistics over long windows read these instead of the raw records.
 */
export const memberActivityDaily = pgTable(
  'member_activity_daily',
  {
    // As for activity_records: the member's key covers the account.
    accountId: integer('account_id').notNull(),
    memberId: integer('member_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    activityId: integer('activity_id').notNull(),
    brandId: integer('brand_id'),
    service: text('service'),
    oneTime: boolean('one_time').notNull().default(false),
    count: integer('count').notNull(),
    points: integer('points').notNull(),
  },
  (t) => [
    foreignKey({ name: 'member_activity_daily_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    foreignKey({ name: 'member_activity_daily_activity_fk', columns: [t.accountId, t.activityId], foreignColumns: [activityDefinitions.accountId, activityDefinitions.id] }).onDelete('cascade'),
    foreignKey({ name: 'member_activity_daily_brand_fk', columns: [t.accountId, t.brandId], foreignColumns: [brands.accountId, brands.id] }),
    unique('member_activity_daily_key').on(t.accountId, t.memberId, t.day, t.activityId, t.brandId, t.service).nullsNotDistinct(),
    // Both carry every column a score reads, so windows are summed from the index alone (index-only scans).
    index('member_activity_daily_account_day_idx').on(t.accountId, t.day, t.memberId, t.points, t.count, t.oneTime, t.activityId, t.brandId, t.service),
    index('member_activity_daily_account_brand_day_idx').on(t.accountId, t.brandId, t.day, t.memberId, t.points, t.count, t.oneTime, t.activityId, t.service),
  ],
);

/**
 * Records accepted with `async=1`, waiting for the recorder. Being a table, the queue survives a
 * restart; workers claim rows with `for update skip locked`, so several gateways can share it.
 */
export const activityQueue = pgTable(
  'activity_queue',
  {
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    applicationId: integer('application_id').references(() => applications.id, { onDelete: 'set null' }),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    enqueuedAt: timestamp('enqueued_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'activity_queue_pkey', columns: [t.accountId, t.id] }),
    index('activity_queue_account_enqueued_idx').on(t.accountId, t.enqueuedAt),
    // The queue in id order across accounts (its oldest row). Workers claim by the primary key instead,
    // account by account in turn (claimNext in activities.queue.queries.ts).
    index('activity_queue_id_idx').on(t.id),
  ],
);
