import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { members } from './members.js';
import { accounts } from './tenancy.js';

/** What a brand is known as on one network, derived from the URL given for it. */
export interface BrandNetworkRef {
  url: string;
  /** The network's id for the brand (artist id, channel id, page id…), when the URL gives one. */
  id?: string | null;
  /** Screen name, username or name on the network, when the URL gives one. */
  handle?: string | null;
}

/**
 * A brand of the account: an artist, a club, a product. Deleted brands keep their row
 * (`deleted_at`) so activities recorded against them stay readable.
 */
export const brands = pgTable(
  'brands',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    type: text('type').notNull(),
    officialWebsiteUrl: text('official_website_url'),
    wikipediaUrl: text('wikipedia_url'),
    imageUrl: text('image_url'),
    hashTag: text('hash_tag'),
    /** Per network (`spotify`, `youtube`, …): the URL given and what was derived from it. */
    networks: jsonb('networks').$type<Record<string, BrandNetworkRef>>().notNull().default({}),
    /** Enterprise custom fields, once the feature is switched on for the application. */
    custom: jsonb('custom').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'brands_pkey', columns: [t.accountId, t.id] }),
    uniqueIndex('brands_account_slug_key')
      .on(t.accountId, t.slug)
      .where(sql`${t.deletedAt} is null`),
    index('brands_account_type_idx').on(t.accountId, t.type),
  ],
);

/**
 * A segment of the account, optionally tied to a brand. A `list` segment holds the members who
 * opted into it; a `filter` segment is a saved member filter whose membership is computed into
 * `segment_members`.
 */
export const segments = pgTable(
  'segments',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    brandId: integer('brand_id'),
    name: text('name').notNull(),
    label: text('label'),
    kind: text('kind').$type<'list' | 'filter'>().notNull().default('list'),
    /** For `filter` segments: the saved member filter (the GraphQL MemberFilter input). */
    filter: jsonb('filter').$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'segments_pkey', columns: [t.accountId, t.id] }),
    // Brands are only ever soft-deleted, so no action is needed on delete (docs/scaling.md: why not `set null`).
    foreignKey({ name: 'segments_brand_fk', columns: [t.accountId, t.brandId], foreignColumns: [brands.accountId, brands.id] }),
    index('segments_account_brand_idx').on(t.accountId, t.brandId),
  ],
);

/** Computed membership of `filter` segments (list segments use opt-ins instead). */
export const segmentMembers = pgTable(
  'segment_members',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    segmentId: integer('segment_id').notNull(),
    memberId: integer('member_id').notNull(),
    computedAt: timestamp('computed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.segmentId, t.memberId] }),
    foreignKey({ name: 'segment_members_segment_fk', columns: [t.accountId, t.segmentId], foreignColumns: [segments.accountId, segments.id] }).onDelete('cascade'),
    foreignKey({ name: 'segment_members_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    index('segment_members_account_member_idx').on(t.accountId, t.memberId),
  ],
);

/**
 * A member's opt-in to a brand list, a segment or the account's global list. Opting out stamps
 * `opted_out_at` and keeps the row, so the history stays; opting in again starts a new row.
 */
export const optins = pgTable(
  'optins',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    memberId: integer('member_id').notNull(),
    kind: text('kind').$type<'brand' | 'segment' | 'global'>().notNull(),
    brandId: integer('brand_id'),
    segmentId: integer('segment_id'),
    optedInAt: timestamp('opted_in_at', { withTimezone: true }).notNull().defaultNow(),
    optedOutAt: timestamp('opted_out_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'optins_pkey', columns: [t.accountId, t.id] }),
    foreignKey({ name: 'optins_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    foreignKey({ name: 'optins_brand_fk', columns: [t.accountId, t.brandId], foreignColumns: [brands.accountId, brands.id] }).onDelete('cascade'),
    foreignKey({ name: 'optins_segment_fk', columns: [t.accountId, t.segmentId], foreignColumns: [segments.accountId, segments.id] }).onDelete('cascade'),
    // One current opt-in per member and list; past ones (opted out) may repeat.
    uniqueIndex('optins_account_member_list_current_key')
      .on(t.accountId, t.memberId, t.kind, sql`coalesce(${t.brandId}, 0)`, sql`coalesce(${t.segmentId}, 0)`)
      .where(sql`${t.optedOutAt} is null`),
    index('optins_account_brand_idx').on(t.accountId, t.brandId, t.memberId),
    index('optins_account_segment_idx').on(t.accountId, t.segmentId, t.memberId),
    // Both times come from the database's clock; an opt-out never precedes its opt-in.
    check('optins_opted_out_after_opted_in', sql`${t.optedOutAt} >= ${t.optedInAt}`),
  ],
);

/**
 * A brand's members: members opted into it now, or with a daily rollup row on it (active on it at
 * any time). Kept by triggers on `member_activity_daily` and `optins` (migration
 * `0017_brand_members_triggers`): a new pair is added in the transaction that makes it, and a pair
 * that may have ended (a rollup row or an opt-in gone) is queued in `brand_member_rechecks`, which
 * readers correct for and the score windows worker settles. So the set is always a superset of the
 * brand's members, and exactly them once the queue is empty. Like the other kept tables, only a
 * foreign key to the account: a deleted member leaves through the triggers (its rollup rows and
 * opt-ins cascade), so the counts follow, and each pair a recording adds checks one key, not three.
 */
export const brandMembers = pgTable(
  'brand_members',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    brandId: integer('brand_id').notNull(),
    memberId: integer('member_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.brandId, t.memberId] })],
);

/**
 * How many rows `brand_members` holds per brand, as deltas: each change adds a row (no hot row for
 * concurrent recordings to queue on), and the worker sums them back into one row per brand.
 */
export const brandMemberCounts = pgTable(
  'brand_member_counts',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    brandId: integer('brand_id').notNull(),
    members: integer('members').notNull(),
  },
  (t) => [index('brand_member_counts_account_brand_idx').on(t.accountId, t.brandId)],
);

/**
 * Pairs of `brand_members` that may no longer hold: a rollup row or an opt-in of theirs went away.
 * No foreign keys: rows are queued while their account's rows cascade away too (an account being
 * deleted), and the worker's next pass removes them.
 */
export const brandMemberRechecks = pgTable(
  'brand_member_rechecks',
  {
    accountId: integer('account_id').notNull(),
    brandId: integer('brand_id').notNull(),
    memberId: integer('member_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.brandId, t.memberId] })],
);
