import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { SignInNetworkSettings } from './widget.js';

export const planEnum = pgEnum('plan', ['basic', 'advanced', 'enterprise']);
export type Plan = (typeof planEnum.enumValues)[number];

export const accounts = pgTable(
  'accounts',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    /** The account's owners require a second factor (TOTP) of every staff member signing in to the console. */
    staffTotpRequired: boolean('staff_totp_required').notNull().default(false),
    /**
     * How many months of activity records the account keeps (src/modules/retention/); null keeps
     * everything. The daily rollup and the kept totals are kept whatever this says.
     */
    recordRetentionMonths: integer('record_retention_months'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('accounts_name_key').on(t.name)],
);

/** Per-application switches; each later module reads its own key from here. */
export interface ApplicationSettings {
  /** `trust`: the caller vouches for network tokens; `verify`: each token is checked with its network. */
  networkVerification?: 'trust' | 'verify';
  /** Enterprise features switched on for this application (for example `brandCustomFields`). */
  features?: string[];
  /** Profile fields the hosted sign-in flow asks for once a fan has signed in, e.g. `['firstName', 'country']`. */
  requiredFields?: string[];
  /** Social sign-in through the hosted flow, per network identifier (see docs/widget.md). */
  signInNetworks?: Record<string, SignInNetworkSettings>;
  /** The emails sent to fans for this application: sender name and templates (docs/members.md). */
  email?: EmailSettings;
  /** The hosted sign-in pages' title, colours, logo and footer link (docs/widget.md, "The pages' look"). */
  signInPageLook?: SignInPageLook;
  /**
   * How the on-page flow refuses an email sign-in (docs/widget.md, "The on-page flow"): `distinct`
   * (unset) answers 13 for an unknown address and 18 for a wrong password, as AE does; `uniform`
   * answers 18 for both.
   */
  signInErrors?: 'distinct' | 'uniform';
  /**
   * The lists a fan may opt into and out of with a member JWT of this application (viewerOptIn,
   * viewerOptOut; docs/members.md, "Member JWT"): brands and list segments by id, and the global
   * list when `global`. Unset: none, so nothing opens to fans until the application decides.
   */
  selfServiceLists?: SelfServiceLists;
}

/** Ids checked to be the account's live brands and list segments when set (modules/segments/self-service-lists.ts). */
export interface SelfServiceLists {
  global: boolean;
  brandIds: number[];
  segmentIds: number[];
}

/** Each value checked when set (modules/widget/look.ts); what is unset is the default. */
export interface SignInPageLook {
  /** Shown as the application's name on the pages; default: the application's name. */
  title?: string;
  /** `#rrggbb`: buttons and links. */
  accentColor?: string;
  /** `#rrggbb`: the page around the form. */
  backgroundColor?: string;
  /** An https URL on one of the application's whitelisted domains. */
  logoUrl?: string;
  /** An https URL on one of the application's whitelisted domains, linked below the form. */
  footerLinkUrl?: string;
  /** The footer link's text; default "Privacy policy". */
  footerLinkText?: string;
}

/** A message's subject and plain-text body, with `{{placeholders}}` (modules/email/templates.ts). */
export interface EmailTemplate {
  subject: string;
  body: string;
}

export interface EmailSettings {
  /** Shown as the sender's name; the address is the deployment's MAIL_FROM. Default: the application's name. */
  senderName?: string;
  verifyEmail?: EmailTemplate;
  resetPassword?: EmailTemplate;
}

export const applications = pgTable(
  'applications',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    plan: planEnum('plan').notNull().default('basic'),
    settings: jsonb('settings').$type<ApplicationSettings>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('applications_account_name_key').on(t.accountId, t.name)],
);

/**
 * API keys are stored as SHA-256 digests: a key is 256 random bits, so a fast hash is enough and
 * lets the lookup be an index probe. The plain key is shown once, at creation. A key without an
 * application is the account's global key (usage totals across its applications).
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    applicationId: integer('application_id').references(() => applications.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull(),
    /** The first characters of the key, so operators can tell keys apart in listings. */
    prefix: text('prefix').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    // The one lookup that is not scoped by account: it is how the account is found.
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_account_application_idx').on(t.accountId, t.applicationId),
    // At most one live global key per account.
    uniqueIndex('api_keys_account_global_key')
      .on(t.accountId)
      .where(sql`${t.applicationId} is null and ${t.revokedAt} is null`),
  ],
);

export const whitelistedDomains = pgTable(
  'whitelisted_domains',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    applicationId: integer('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.applicationId, t.domain] })],
);

/** Hit counts per application and hour, written by the usage meter's periodic upsert. */
export const apiHits = pgTable(
  'api_hits',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    applicationId: integer('application_id')
      .notNull()
      .references(() => applications.id, { onDelete: 'cascade' }),
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    hits: bigint('hits', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.applicationId, t.hour] })],
);
