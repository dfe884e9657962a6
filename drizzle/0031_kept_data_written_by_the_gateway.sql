-- Custom SQL migration file, put your code below! --
-- The kept data (docs/kept-data.md) is now written by the gateway's own statements: the ones that
-- change the daily rollup or the opt-ins also mark days stale and add or queue brand members
-- (src/modules/kept-data/kept-writes.ts), and the statements that store records hold their
-- members and the windows' claim with row locks. The triggers read transition tables and took
-- advisory locks inside the write: on a Citus cluster they run on the shards, where a transition
-- table cannot meet a distributed table and a lock protects nothing the gateway's workers hold.
DROP TRIGGER IF EXISTS timeline_days_inserted ON member_activity_daily;
--> statement-breakpoint
DROP TRIGGER IF EXISTS timeline_days_updated ON member_activity_daily;
--> statement-breakpoint
DROP TRIGGER IF EXISTS timeline_days_deleted ON member_activity_daily;
--> statement-breakpoint
DROP TRIGGER IF EXISTS brand_members_rollup_inserted ON member_activity_daily;
--> statement-breakpoint
DROP TRIGGER IF EXISTS brand_members_rollup_moved ON member_activity_daily;
--> statement-breakpoint
DROP TRIGGER IF EXISTS brand_members_rollup_deleted ON member_activity_daily;
--> statement-breakpoint
DROP TRIGGER IF EXISTS brand_members_optins_inserted ON optins;
--> statement-breakpoint
DROP TRIGGER IF EXISTS brand_members_optins_updated ON optins;
--> statement-breakpoint
DROP TRIGGER IF EXISTS brand_members_optins_deleted ON optins;
--> statement-breakpoint
DROP FUNCTION IF EXISTS timeline_days_changed();
--> statement-breakpoint
DROP FUNCTION IF EXISTS brand_members_rollup_inserted();
--> statement-breakpoint
DROP FUNCTION IF EXISTS brand_members_rollup_moved();
--> statement-breakpoint
DROP FUNCTION IF EXISTS brand_members_rollup_deleted();
--> statement-breakpoint
DROP FUNCTION IF EXISTS brand_members_optins_inserted();
--> statement-breakpoint
DROP FUNCTION IF EXISTS brand_members_optins_updated();
--> statement-breakpoint
DROP FUNCTION IF EXISTS brand_members_optins_deleted();
--> statement-breakpoint
DROP FUNCTION IF EXISTS brand_members_add(integer[], integer[], integer[]);
--> statement-breakpoint
DROP FUNCTION IF EXISTS brand_members_recheck(integer[], integer[], integer[]);
--> statement-breakpoint
DROP FUNCTION IF EXISTS score_windows_admit_records(integer, timestamptz[]);
--> statement-breakpoint
DROP FUNCTION IF EXISTS members_hold_for_records(integer, integer[]);
