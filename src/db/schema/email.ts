import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { members } from './members.js';
import { accounts, applications } from './tenancy.js';

/**
 * Links emailed to a member: `verify` confirms the member's address, `reset` sets a new password.
 * The link carries `<id>.<secret>`; only the SHA-256 digest of the secret is kept, and it is
 * compared in constant time after the row is found by its id. A link is spent by setting `used_at`,
 * once, before `expires_at`; `email` is the address it was sent to, and the link does nothing once
 * the member's address is another. `session_generation` is the member's session generation when
 * the link was issued: the link works only while it is still the member's (a reset, a revocation or
 * a merge raises it), and is set to null to end the link without spending it (a new password, a
 * changed address); rows from before the column have none and work no more (modules/email/email-links.ts).
 */
export const memberEmailLinks = pgTable(
  'member_email_links',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    applicationId: integer('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    memberId: integer('member_id').notNull(),
    purpose: text('purpose').$type<'verify' | 'reset'>().notNull(),
    email: text('email').notNull(),
    secretHash: text('secret_hash').notNull(),
    // Nullable: added to a live table without rewriting it.
    sessionGeneration: integer('session_generation'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'member_email_links_pkey', columns: [t.accountId, t.id] }),
    foreignKey({ name: 'member_email_links_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    index('member_email_links_account_member_idx').on(t.accountId, t.memberId, t.purpose),
    index('member_email_links_account_expires_idx').on(t.accountId, t.expiresAt),
  ],
);

/**
 * Emails waiting to be sent, and those sent or given up on, per account. The worker claims due rows
 * of one account at a time (`for update skip locked`, equality on the account), sends them, and
 * either marks them sent or schedules the next attempt with a growing delay, up to a bounded number
 * of attempts (modules/email/outbox.worker.ts). The body holds a live link while the row is
 * pending: rows are deleted a while after they are sent or abandoned.
 */
export const emailOutbox = pgTable(
  'email_outbox',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    applicationId: integer('application_id').references(() => applications.id, { onDelete: 'set null' }),
    /**
     * The fan the mail is to, when it is to one (verification, reset): an export lists their mails,
     * and erasing the fan deletes them (the foreign key cascades). Nullable: added to a live table.
     */
    memberId: integer('member_id'),
    /** What the message is (`verify-email`, `reset-password`), for the log and the metrics. */
    kind: text('kind').notNull(),
    recipient: text('recipient').notNull(),
    /** The sender's display name; the address is the deployment's (MAIL_FROM). */
    senderName: text('sender_name'),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    status: text('status').$type<'pending' | 'sent' | 'failed'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'email_outbox_pkey', columns: [t.accountId, t.id] }),
    // The worker's claim: an account's due pending rows, oldest due first.
    index('email_outbox_account_due_idx')
      .on(t.accountId, t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    index('email_outbox_account_created_idx').on(t.accountId, t.createdAt),
    foreignKey({ name: 'email_outbox_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    index('email_outbox_account_member_idx').on(t.accountId, t.memberId, t.createdAt),
  ],
);
