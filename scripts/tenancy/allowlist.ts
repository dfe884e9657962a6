/**
 * Statements that read several accounts by design, each with the reason it must. An entry names a
 * piece of the statement's text (whitespace collapsed to single spaces) and the tables it may
 * leave unfiltered there; any other reference in the same statement is still checked. Keep this list
 * short: a statement that can know its account takes it instead (docs/tenancy.md).
 */
export interface AllowedStatement {
  /** A piece of the statement's text that names it without doubt. */
  contains: string;
  /** The tables this statement may read across accounts. */
  tables: string[];
  reason: string;
}

export const allowedStatements: AllowedStatement[] = [
  // Finding the account from what the caller holds.
  {
    contains: 'from "api_keys" left join "applications" on ("applications"."account_id" = "api_keys"."account_id" and "applications"."id" = "api_keys"."application_id") where ("api_keys"."key_hash" = $1',
    tables: ['api_keys', 'applications'],
    reason: "resolving an API key (tenancy.queries.ts findLiveKeyByHash) is how a request learns its account; its application is joined on the key's account",
  },
  {
    contains: 'from "applications" where "applications"."id" = $1',
    tables: ['applications'],
    reason: "the widget's public URLs name an application by its id alone (widget.service.ts widgetApplication), and so does the admin CLI (app key create); the row gives the account",
  },
  {
    contains: 'update "applications" set "plan" = $1 where "applications"."id" = $2',
    tables: ['applications'],
    reason: "the admin CLI sets a plan by the application's id (cli.ts app plan), across accounts by its nature",
  },
  {
    contains: 'update "applications" set "settings" = "applications"."settings" || $1::jsonb where "applications"."id" = $2',
    tables: ['applications'],
    reason: "the admin CLI switches network verification by the application's id (cli.ts app network-verification), across accounts by its nature; the API's switch names the caller's account",
  },
  {
    contains: `update "applications" set "settings" = jsonb_set("applications"."settings", '{features}', (coalesce("applications"."settings" -> 'features', '[]'::jsonb) - $1::text) || jsonb_build_array($2::text)) where "applications"."id" = $3`,
    tables: ['applications'],
    reason: "the admin CLI switches an enterprise feature on by the application's id (cli.ts app brand-custom-fields), across accounts by its nature; the API's switch names the caller's account",
  },
  {
    contains: `update "applications" set "settings" = jsonb_set("applications"."settings", '{features}', coalesce("applications"."settings" -> 'features', '[]'::jsonb) - $1::text) where "applications"."id" = $2`,
    tables: ['applications'],
    reason: "the admin CLI switches an enterprise feature off by the application's id (cli.ts app brand-custom-fields); the API's switch names the caller's account",
  },
  {
    contains: 'update "api_keys" set "revoked_at" = $1 where ("api_keys"."id" = $2 and "api_keys"."revoked_at" is null)',
    tables: ['api_keys'],
    reason: 'the admin CLI revokes a key by its id (cli.ts key revoke), across accounts by its nature',
  },
  {
    contains: 'from "staff_roles" inner join "accounts" on "accounts"."id" = "staff_roles"."account_id" where "staff_roles"."staff_id" = $1',
    tables: ['staff_roles', 'accounts'],
    reason:
      'a console staff member is one person across accounts (staff_users is global): signing in finds them by email, then the accounts they belong to (staff.queries.ts membershipsOfStaff); adding them, a one-time link and a password change read the same list, then act on each account alone',
  },

  {
    contains: 'from "accounts" where "accounts"."name" = $1',
    tables: ['accounts'],
    reason: 'the admin CLI names an account by its name (tenancy.queries.ts findAccountByName)',
  },
  {
    contains: 'from "accounts" order by "accounts"."id"',
    tables: ['accounts'],
    reason:
      'the admin CLI lists the accounts, the demo account is made only on a database without any (tenancy.queries.ts listAccounts), and the background workers that look for work (the score windows, the email outbox) list them, then ask of each alone (tenancy.queries.ts accountsWhere)',
  },

  // Background workers: which accounts have work; the work itself then runs one account at a time.
  {
    contains: 'select account_id from "brand_member_rechecks" union select account_id from "brand_member_counts" group by account_id, brand_id having count(*) > 1',
    tables: ['brand_member_rechecks', 'brand_member_counts'],
    reason: 'the same worker (brand-members.queries.ts accountsToSettle) lists the accounts with brand members to settle, then settles each alone',
  },
  {
    contains: 'select "id", "record_retention_months" from "accounts" where "accounts"."record_retention_months" is not null',
    tables: ['accounts'],
    reason: "the record retention worker (retention.queries.ts accountsWithRetention) lists the accounts that keep their records for a number of months, then removes each one's records alone",
  },
  {
    contains: 'from "activity_queue" where ("activity_queue"."account_id" between $1::int and $2::int and "activity_queue"."attempts" < $3) order by "activity_queue"."account_id"',
    tables: ['activity_queue'],
    reason: 'the asynchronous recording queue (activities.queue.queries.ts nextQueuedAccount) reads which account is next in turn, without a lock; the claim then locks a row of that account alone',
  },
  {
    contains: 'select count(*)::int as depth from (select 1 from "activity_queue" limit $1) as waiting',
    tables: ['activity_queue'],
    reason: "the operator's /metrics (activities.queue.queries.ts queueBacklog) counts the queue of every account at once, capped; it names no row",
  },
  {
    contains: 'select "enqueued_at" from "activity_queue" order by "activity_queue"."id" limit $1',
    tables: ['activity_queue'],
    reason: "the operator's /metrics (activities.queue.queries.ts queueBacklog) reads when the oldest queued record of any account was queued; it reads no payload",
  },
  {
    contains: 'select "status", count(*)::int from "presave_jobs" where "presave_jobs"."status" <> $1 group by "presave_jobs"."status"',
    tables: ['presave_jobs'],
    reason: "the operator's /metrics (presave.queries.ts unfinishedJobsByStatus) counts the unfinished presave jobs of every account by status",
  },
  {
    contains: 'delete from "api_hits" where "api_hits"."hour" < $1',
    tables: ['api_hits'],
    reason: 'usage retention (usage.queries.ts deleteHitsBefore) drops the hours past the kept span for every account at once',
  },

  // Maintenance that reads no rows for anyone.
  {
    contains: 'analyze "score_window_activity_totals"',
    tables: ['score_window_activity_totals'],
    reason:
      "statistics after an account's first activity totals are written (score-window-activities.queries.ts buildActivityTotals), so the planner reads their groups in index order instead of sorting them on disk",
  },
];
