-- Custom SQL migration file, put your code below! --
-- The tenant tables' primary keys become (account_id, id) in the next migration, so that Citus can
-- distribute them on account_id (docs/scaling.md). drizzle-kit cannot drop a primary key declared on
-- a column (it leaves the statement commented out), so the old ones go here; the foreign keys that
-- used them went in the migration before. Nothing is unique on id alone in between.
ALTER TABLE "members" DROP CONSTRAINT "members_pkey";--> statement-breakpoint
ALTER TABLE "member_services" DROP CONSTRAINT "member_services_pkey";--> statement-breakpoint
ALTER TABLE "login_events" DROP CONSTRAINT "login_events_pkey";--> statement-breakpoint
ALTER TABLE "brands" DROP CONSTRAINT "brands_pkey";--> statement-breakpoint
ALTER TABLE "segments" DROP CONSTRAINT "segments_pkey";--> statement-breakpoint
ALTER TABLE "optins" DROP CONSTRAINT "optins_pkey";--> statement-breakpoint
ALTER TABLE "activity_definitions" DROP CONSTRAINT "activity_definitions_pkey";--> statement-breakpoint
ALTER TABLE "activity_records" DROP CONSTRAINT "activity_records_pkey";--> statement-breakpoint
ALTER TABLE "activity_queue" DROP CONSTRAINT "activity_queue_pkey";--> statement-breakpoint
ALTER TABLE "presave_jobs" DROP CONSTRAINT "presave_jobs_pkey";--> statement-breakpoint
ALTER TABLE "presave_results" DROP CONSTRAINT "presave_results_pkey";--> statement-breakpoint
ALTER TABLE "sign_in_tokens" DROP CONSTRAINT "sign_in_tokens_pkey";--> statement-breakpoint
ALTER TABLE "widget_sessions" DROP CONSTRAINT "widget_sessions_pkey";
