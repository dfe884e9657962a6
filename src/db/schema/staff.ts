import { sql } from 'drizzle-orm';
import { bigint, foreignKey, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './tenancy.js';

/**
 * The people who run an account in the console (docs/console.md). A staff member is global, like a
 * person: one email, one password, one second factor, and a role in each account they belong to
 * (`staff_roles`). Only the password's argon2id hash is kept, and the TOTP secret sealed with the
 * token cipher (identity/token-cipher.ts).
 */
export const staffUsers = pgTable(
  'staff_users',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    email: text('email').notNull(),
    /** Null until the staff member sets one (through a one-time sign-in link). */
    passwordHash: text('password_hash'),
    /** The TOTP secret, sealed; null until a second factor is confirmed. */
    totpSecretSealed: text('totp_secret_sealed'),
    /** A secret being set up (startTotpSetup), sealed, until a code confirms it. */
    totpPendingSealed: text('totp_pending_sealed'),
    /** The time step of the last code accepted: that code, and any earlier one, is refused from then on. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('staff_users_email_key').on(sql`lower(${t.email})`)],
);

/** A staff member's role in one account: what they may do there (modules/staff/permissions.ts). */
export const staffRoles = pgTable(
  'staff_roles',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    staffId: integer('staff_id')
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['analyst', 'support', 'admin', 'owner'] }).notNull(),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.staffId] }), index('staff_roles_staff_idx').on(t.staffId)],
);

/**
 * A console session: the cookie holds the account id and 32 random bytes; only the bytes' SHA-256
 * is kept. It ends at `expires_at` (12 h after sign-in), after 30 minutes without a request, or
 * when revoked (sign-out, password or role change, removal).
 */
export const staffSessions = pgTable(
  'staff_sessions',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    id: integer('id').generatedAlwaysAsIdentity(),
    staffId: integer('staff_id')
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** When the session proved a second factor (a TOTP code); null for a password alone. */
    secondFactorAt: timestamp('second_factor_at', { withTimezone: true }),
    ip: text('ip'),
    userAgent: text('user_agent'),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.id] }),
    uniqueIndex('staff_sessions_account_token_hash_key').on(t.accountId, t.tokenHash),
    index('staff_sessions_account_staff_idx').on(t.accountId, t.staffId),
    foreignKey({ name: 'staff_sessions_role_fk', columns: [t.accountId, t.staffId], foreignColumns: [staffRoles.accountId, staffRoles.staffId] }).onDelete('cascade'),
  ],
);

/**
 * One-time sign-in links (`/console/invite#<account>.<token>`): the staff member chooses a password
 * with it and is signed in. Single use, seven days; only the token's SHA-256 is kept.
 */
export const staffInvites = pgTable(
  'staff_invites',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    staffId: integer('staff_id')
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.tokenHash] }),
    index('staff_invites_account_staff_idx').on(t.accountId, t.staffId),
    foreignKey({ name: 'staff_invites_role_fk', columns: [t.accountId, t.staffId], foreignColumns: [staffRoles.accountId, staffRoles.staffId] }).onDelete('cascade'),
  ],
);
