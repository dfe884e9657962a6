import { sql } from 'drizzle-orm';
import { bigint, boolean, check, date, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts, applications } from './tenancy.js';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

/**
 * A member (fan) of an account. Ids come from one sequence across accounts (the interface shows
 * them as numbers); every lookup is still scoped by account. A member merged into another keeps
 * its row with `merged_into_id`, so its old id answers as the survivor; it never names the member
 * itself.
 */
export const members = pgTable(
  'members',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    uuid: text('uuid')
      .notNull()
      .default(sql`gen_random_uuid()::text`),
    /** The application whose key registered the member: only it may verify the member's email. */
    registeredByApplicationId: integer('registered_by_application_id').references(() => applications.id, { onDelete: 'set null' }),
    email: text('email'),
    verifiedEmail: text('verified_email'),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    firstName: text('first_name'),
    surname: text('surname'),
    username: text('username'),
    gender: text('gender'),
    birthDate: date('birth_date'),
    bio: text('bio'),
    avatarUrl: text('avatar_url'),
    address: text('address'),
    addressLine2: text('address_line2'),
    city: text('city'),
    state: text('state'),
    country: text('country'),
    postCode: text('post_code'),
    homePhone: text('home_phone'),
    mobilePhone: text('mobile_phone'),
    website: text('website'),
    geoCountry: text('geo_country'),
    geoCity: text('geo_city'),
    geoRegion: text('geo_region'),
    geoLat: text('geo_lat'),
    geoLong: text('geo_long'),
    /** The caller's consistent import code (`code` at registration). */
    importCode: text('import_code'),
    /** Custom fields of the account: the Extended node of member show. */
    extended: jsonb('extended').$type<Record<string, unknown>>().notNull().default({}),
    /** `<32 hex>_<unix time>`: looked up by digest, shown from its sealed copy. */
    accessTokenHash: text('access_token_hash').notNull(),
    accessTokenSealed: text('access_token_sealed').notNull(),
    /** When the access token was issued: it expires a lifetime later (identity/access-tokens.ts). */
    accessTokenIssuedAt: timestamp('access_token_issued_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Raised whenever the member's sessions end (password reset, merge, revocation): widget sessions,
     * sign-in tokens and member JWTs carry the value they were issued under, and stop answering once
     * it is raised.
     */
    sessionGeneration: integer('session_generation').notNull().default(0),
    mergedIntoId: integer('merged_into_id'),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ name: 'members_pkey', columns: [t.accountId, t.id] }),
    // Every lookup by token knows the account (the caller's key), so the key can lead with it.
    uniqueIndex('members_account_access_token_hash_key').on(t.accountId, t.accessTokenHash),
    index('members_account_merged_into_idx').on(t.accountId, t.mergedIntoId),
    index('members_account_created_idx').on(t.accountId, t.createdAt),
    index('members_account_last_login_idx').on(t.accountId, t.lastLoginAt),
    // Merges lock both members and re-point earlier merges at the survivor; this is the last guard
    // against a member answering as itself for ever.
    check('members_not_merged_into_self', sql`${t.mergedIntoId} <> ${t.id}`),
    // Lookups by address or username (`lower(x) = …`: members/usernames.ts keeps usernames given at
    // registration unique per account through the last) and the console's fan search
    // (modules/fan-search): a prefix of one column (`like 'ab%'`, which text_pattern_ops answers
    // whatever the collation, and whose operator family has `=` too), read in (value, id) order so
    // a page stops after its rows; the id last also answers an exact value in id order.
    index('members_account_email_prefix_idx').on(t.accountId, sql`lower(${t.email}) text_pattern_ops`, t.id),
    index('members_account_verified_email_prefix_idx').on(t.accountId, sql`lower(${t.verifiedEmail}) text_pattern_ops`, t.id),
    index('members_account_first_name_prefix_idx').on(t.accountId, sql`lower(${t.firstName}) text_pattern_ops`, t.id),
    index('members_account_surname_prefix_idx').on(t.accountId, sql`lower(${t.surname}) text_pattern_ops`, t.id),
    index('members_account_username_prefix_idx').on(t.accountId, sql`lower(${t.username}) text_pattern_ops`, t.id),
  ],
);

/**
 * One identity of a member on a network (or `email`). Unique per account, network and network user
 * id: concurrent registrations of one identity meet on this constraint and yield one member.
 * Network tokens are sealed (AES-GCM); the email identity keeps an argon2id hash instead.
 */
export const memberServices = pgTable(
  'member_services',
  {
    id: integer('id').generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    memberId: integer('member_id').notNull(),
    network: text('network').notNull(),
    /** The user id on the network; for `email`, the lower-cased address. */
    uid: text('uid').notNull(),
    username: text('username'),
    userUrl: text('user_url'),
    tokenSealed: text('token_sealed'),
    tokenSecretSealed: text('token_secret_sealed'),
    passwordHash: text('password_hash'),
    valid: boolean('valid').notNull().default(true),
    activitySharing: boolean('activity_sharing').notNull().default(true),
    paidAccount: boolean('paid_account').notNull().default(false),
    followers: integer('followers'),
    likes: integer('likes'),
    partnerCode: text('partner_code'),
    partnerId: text('partner_id'),
    verifiedEmail: text('verified_email'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    registeredByApplicationId: integer('registered_by_application_id').references(() => applications.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ name: 'member_services_pkey', columns: [t.accountId, t.id] }),
    foreignKey({ name: 'member_services_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    uniqueIndex('member_services_account_network_uid_key').on(t.accountId, t.network, t.uid),
    index('member_services_account_member_idx').on(t.accountId, t.memberId),
    index('member_services_account_network_username_idx').on(t.accountId, t.network, sql`lower(${t.username})`),
    index('member_services_account_partner_idx').on(t.accountId, t.partnerCode, t.partnerId),
    // A verification asks whether another member's identity proved the address (addressHeldByAnother).
    index('member_services_account_verified_email_idx').on(t.accountId, sql`lower(${t.verifiedEmail})`),
    // The fan search's network user id, whatever the network: the unique key leads with the
    // network, and PostgreSQL before 18 cannot skip over it.
    index('member_services_account_uid_idx').on(t.accountId, t.uid),
  ],
);

/** Websites a member registered on or signed in from, per service (`API` for direct API calls). */
export const memberDomains = pgTable(
  'member_domains',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    serviceId: integer('service_id').notNull(),
    memberId: integer('member_id').notNull(),
    domain: text('domain').notNull(),
    /** True when the member registered there (strict single sign-on asks for this). */
    registered: boolean('registered').notNull().default(false),
    firstVisit: timestamp('first_visit', { withTimezone: true }).notNull().defaultNow(),
    lastVisit: timestamp('last_visit', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.serviceId, t.domain] }),
    foreignKey({ name: 'member_domains_service_fk', columns: [t.accountId, t.serviceId], foreignColumns: [memberServices.accountId, memberServices.id] }).onDelete('cascade'),
    foreignKey({ name: 'member_domains_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    index('member_domains_account_member_idx').on(t.accountId, t.memberId),
    index('member_domains_account_domain_idx').on(t.accountId, t.domain),
  ],
);

/**
 * Every registration and successful login (`kind`): the interface's login event, and the source of
 * the registration statistics (channel, domain, time).
 */
export const loginEvents = pgTable(
  'login_events',
  {
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    memberId: integer('member_id').notNull(),
    serviceId: integer('service_id'),
    applicationId: integer('application_id').references(() => applications.id, { onDelete: 'set null' }),
    kind: text('kind').$type<'register' | 'login'>().notNull(),
    network: text('network').notNull(),
    domain: text('domain'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'login_events_pkey', columns: [t.accountId, t.id] }),
    foreignKey({ name: 'login_events_member_fk', columns: [t.accountId, t.memberId], foreignColumns: [members.accountId, members.id] }).onDelete('cascade'),
    // No action rather than `set null`: see docs/scaling.md (a service leaves with its member, whose events go too).
    foreignKey({ name: 'login_events_service_fk', columns: [t.accountId, t.serviceId], foreignColumns: [memberServices.accountId, memberServices.id] }),
    index('login_events_account_member_created_idx').on(t.accountId, t.memberId, t.createdAt),
    index('login_events_account_created_idx').on(t.accountId, t.createdAt),
  ],
);

/**
 * Keys that sign member JWTs. The newest active key signs; older keys stay published in the JWKS
 * until `expires_at`, so tokens they signed keep verifying after a rotation. The private key is
 * sealed with SECRET_KEY.
 */
export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  algorithm: text('algorithm').notNull(),
  publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
  privateJwkSealed: text('private_jwk_sealed').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** After this the key no longer signs. */
  retiredAt: timestamp('retired_at', { withTimezone: true }),
  /** After this the key is no longer published: every token it signed has expired. */
  expiresAt: timestamp('expires_at', { withTimezone: true }),
});
