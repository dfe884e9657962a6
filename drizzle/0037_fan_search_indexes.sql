DROP INDEX "members_account_email_idx";--> statement-breakpoint
DROP INDEX "members_account_verified_email_idx";--> statement-breakpoint
DROP INDEX "members_account_username_idx";--> statement-breakpoint
CREATE INDEX "member_services_account_uid_idx" ON "member_services" USING btree ("account_id","uid");--> statement-breakpoint
CREATE INDEX "members_account_email_prefix_idx" ON "members" USING btree ("account_id",lower("email") text_pattern_ops,"id");--> statement-breakpoint
CREATE INDEX "members_account_verified_email_prefix_idx" ON "members" USING btree ("account_id",lower("verified_email") text_pattern_ops,"id");--> statement-breakpoint
CREATE INDEX "members_account_first_name_prefix_idx" ON "members" USING btree ("account_id",lower("first_name") text_pattern_ops,"id");--> statement-breakpoint
CREATE INDEX "members_account_surname_prefix_idx" ON "members" USING btree ("account_id",lower("surname") text_pattern_ops,"id");--> statement-breakpoint
CREATE INDEX "members_account_username_prefix_idx" ON "members" USING btree ("account_id",lower("username") text_pattern_ops,"id");