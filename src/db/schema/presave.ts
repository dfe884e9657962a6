import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { segments } from './catalogue.js';
import { members } from './members.js';
import { accounts, applications } from './tenancy.js';

/** One thing to save on one music network: a track or an album, by the network's id. */
export interface PresaveItem {
  kind: 'track' | 'album';
  id: string;
}

/** What a presave job saves, per network it can save on. */
export type PresaveItems = Partial<Record<'spotify' | 'deezer', PresaveItem>>;

/**
 * A presave: save a track or album to the libraries of a segment's opted-in members. The job runs
 * in the background after the request that created it; `status` is queued, running or done.
 */
export const presaveJobs = pgTable(
  'presave_jobs',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    segmentId: integer('segment_id').notNull(),
    applicationId: integer('application_id').references(() => applications.id, { onDelete: 'set null' }),
    items: jsonb('items').$type<PresaveItems>().notNull(),
    status: text('status').$type<'queued' | 'running' | 'done'>().notNull().default('queued'),
    /** How many times the job was run (the first run and each retry). */
    runs: integer('runs').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ name: 'presave_jobs_pkey', columns: [t.accountId, t.id] }),
    foreignKey({ name: 'presave_jobs_segment_fk', columns: [t.accountId, t.segmentId], foreignColumns: [segments.accountId, segments.id] }).onDelete('cascade'),
    index('presave_jobs_account_segment_idx').on(t.accountId, t.segmentId),
  ],
);

/**
 * What a job did for one member on one network (`network` null: the member has no usable music
 * network). A row is claimed as `pending` before the network is called, so two runs never save for
 * the same member twice; `item` (`spotify:track:<id>`) lets later jobs skip members who saved it.
 */
export const presaveResults = pgTable(
  'presave_results',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    jobId: integer('job_id').notNull(),
    memberId: integer('member_id').notNull(),
    network: text('network'),
    item: text('item'),
    status: text('status').$type<'pending' | 'saved' | 'skipped' | 'failed'>().notNull(),
    reason: text('reason'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'presave_results_pkey', columns: [t.accountId, t.id] }),
    foreignKey({ name: 'presave_results_job_fk', columns: [t.accountId, t.jobId], foreignColumns: [presaveJobs.accountId, presaveJobs.id] }).onDelete('cascade'),
    foreignKey({ name: 'presave_results_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    unique('presave_results_account_job_member_network_key').on(t.accountId, t.jobId, t.memberId, t.network).nullsNotDistinct(),
    index('presave_results_account_member_saved_idx')
      .on(t.accountId, t.memberId, t.item)
      .where(sql`${t.status} = 'saved'`),
  ],
);
