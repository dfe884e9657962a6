ALTER TABLE "presave_results" DROP CONSTRAINT "presave_results_job_member_network_key";--> statement-breakpoint
ALTER TABLE "login_events" DROP CONSTRAINT "login_events_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "login_events" DROP CONSTRAINT "login_events_service_id_member_services_id_fk";
--> statement-breakpoint
ALTER TABLE "member_domains" DROP CONSTRAINT "member_domains_service_id_member_services_id_fk";
--> statement-breakpoint
ALTER TABLE "member_domains" DROP CONSTRAINT "member_domains_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "member_services" DROP CONSTRAINT "member_services_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "optins" DROP CONSTRAINT "optins_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "optins" DROP CONSTRAINT "optins_brand_id_brands_id_fk";
--> statement-breakpoint
ALTER TABLE "optins" DROP CONSTRAINT "optins_segment_id_segments_id_fk";
--> statement-breakpoint
ALTER TABLE "segment_members" DROP CONSTRAINT "segment_members_segment_id_segments_id_fk";
--> statement-breakpoint
ALTER TABLE "segment_members" DROP CONSTRAINT "segment_members_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "segments" DROP CONSTRAINT "segments_brand_id_brands_id_fk";
--> statement-breakpoint
ALTER TABLE "activity_definitions" DROP CONSTRAINT "activity_definitions_brand_id_brands_id_fk";
--> statement-breakpoint
ALTER TABLE "activity_records" DROP CONSTRAINT "activity_records_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "activity_records" DROP CONSTRAINT "activity_records_activity_id_activity_definitions_id_fk";
--> statement-breakpoint
ALTER TABLE "activity_records" DROP CONSTRAINT "activity_records_brand_id_brands_id_fk";
--> statement-breakpoint
ALTER TABLE "member_activity_daily" DROP CONSTRAINT "member_activity_daily_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "member_activity_daily" DROP CONSTRAINT "member_activity_daily_activity_id_activity_definitions_id_fk";
--> statement-breakpoint
ALTER TABLE "member_activity_daily" DROP CONSTRAINT "member_activity_daily_brand_id_brands_id_fk";
--> statement-breakpoint
ALTER TABLE "presave_jobs" DROP CONSTRAINT "presave_jobs_segment_id_segments_id_fk";
--> statement-breakpoint
ALTER TABLE "presave_results" DROP CONSTRAINT "presave_results_job_id_presave_jobs_id_fk";
--> statement-breakpoint
ALTER TABLE "presave_results" DROP CONSTRAINT "presave_results_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "sign_in_tokens" DROP CONSTRAINT "sign_in_tokens_member_id_members_id_fk";
--> statement-breakpoint
ALTER TABLE "widget_sessions" DROP CONSTRAINT "widget_sessions_member_id_members_id_fk";
--> statement-breakpoint
DROP INDEX "members_access_token_hash_key";--> statement-breakpoint
DROP INDEX "sign_in_tokens_token_hash_key";--> statement-breakpoint
DROP INDEX "widget_sessions_session_hash_key";--> statement-breakpoint
CREATE UNIQUE INDEX "members_account_access_token_hash_key" ON "members" USING btree ("account_id","access_token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "sign_in_tokens_account_token_hash_key" ON "sign_in_tokens" USING btree ("account_id","token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "widget_sessions_account_session_hash_key" ON "widget_sessions" USING btree ("account_id","session_hash");--> statement-breakpoint
ALTER TABLE "presave_results" ADD CONSTRAINT "presave_results_account_job_member_network_key" UNIQUE NULLS NOT DISTINCT("account_id","job_id","member_id","network");