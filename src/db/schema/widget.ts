import { foreignKey, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { members } from './members.js';
import { accounts, applications } from './tenancy.js';

/**
 * How an application signs fans in with one network, through OAuth 2.0 or OpenID Connect. Kept in
 * `applications.settings.signInNetworks[<network>]`; the client secret is sealed with the token cipher.
 */
export interface SignInNetworkSettings {
  clientId: string;
  clientSecretSealed: string;
  /** The provider's issuer identifier; id tokens are checked against it when the provider sends one. */
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string;
  jwksUri?: string;
  scope: string;
}

/**
 * Tokens the sign-in flow hands to the return URL. Only a SHA-256 digest is kept (the token is 256
 * random bits); a token is spent by setting `used_at`, once, before it expires.
 */
export const signInTokens = pgTable(
  'sign_in_tokens',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    applicationId: integer('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    memberId: integer('member_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    /** The member's session generation when issued: a token issued before the sessions ended is refused. */
    sessionGeneration: integer('session_generation').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'sign_in_tokens_pkey', columns: [t.accountId, t.id] }),
    foreignKey({ name: 'sign_in_tokens_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    // A token is spent through the application it was issued for, which names the account.
    uniqueIndex('sign_in_tokens_account_token_hash_key').on(t.accountId, t.tokenHash),
    index('sign_in_tokens_account_member_idx').on(t.accountId, t.memberId),
  ],
);

/**
 * A fan signed in on an application's sites through the widget: the session cookie of the gateway's
 * origin holds a random id; only its digest is stored. Logging out deletes the row; ending the
 * member's sessions (members.session_generation) makes it answer no more.
 */
export const widgetSessions = pgTable(
  'widget_sessions',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    applicationId: integer('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    memberId: integer('member_id').notNull(),
    sessionHash: text('session_hash').notNull(),
    /** The member's session generation when the session started: a raised generation ends it. */
    sessionGeneration: integer('session_generation').notNull().default(0),
    /** How the session began, `registration` or `login`: the widget's `onLogin` tells the page which. */
    beganWith: text('began_with').notNull().default('login'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'widget_sessions_pkey', columns: [t.accountId, t.id] }),
    foreignKey({ name: 'widget_sessions_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    // A session is read through the application whose sites it serves, which names the account.
    uniqueIndex('widget_sessions_account_session_hash_key').on(t.accountId, t.sessionHash),
    index('widget_sessions_account_member_idx').on(t.accountId, t.memberId),
  ],
);
