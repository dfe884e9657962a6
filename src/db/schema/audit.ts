import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './tenancy.js';

/**
 * The audit log: one row per change made by staff, an application's API key or the gateway itself
 * (modules/audit). Append-only: no statement of the product updates or deletes a row (the tenancy
 * statement check fails on one), and no row holds a fan's personal data: a fan is named by their
 * member id alone, which an erasure leaves behind as a number that no longer names anyone.
 * The actor's label (a key's prefix, a staff member's email) is kept as it was, so the entry still
 * reads after the key or the staff member is gone.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
    actorType: text('actor_type').$type<'staff' | 'api_key' | 'system'>().notNull(),
    actorId: integer('actor_id'),
    actorLabel: text('actor_label').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    outcome: text('outcome').$type<'success' | 'denied' | 'failed'>().notNull().default('success'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    ip: text('ip'),
    userAgent: text('user_agent'),
    requestId: text('request_id'),
  },
  (t) => [
    primaryKey({ name: 'audit_events_pkey', columns: [t.accountId, t.id] }),
    // The log's page: newest first, the id breaking ties.
    index('audit_events_account_time_idx').on(t.accountId, t.occurredAt.desc(), t.id.desc()),
    index('audit_events_account_actor_idx').on(t.accountId, t.actorType, t.actorId, t.occurredAt),
    index('audit_events_account_target_idx').on(t.accountId, t.targetType, t.targetId, t.occurredAt),
    index('audit_events_account_action_idx').on(t.accountId, t.action, t.occurredAt),
  ],
);

/** Never unbounded: a client's User-Agent header is kept to this many characters. */
export const auditUserAgentLength = 512;
