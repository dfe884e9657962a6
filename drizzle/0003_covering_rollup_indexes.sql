DROP INDEX "member_activity_daily_account_day_idx";--> statement-breakpoint
DROP INDEX "member_activity_daily_account_brand_day_idx";--> statement-breakpoint
CREATE INDEX "member_activity_daily_account_day_idx" ON "member_activity_daily" USING btree ("account_id","day","member_id","points","count","one_time","activity_id","brand_id","service");--> statement-breakpoint
CREATE INDEX "member_activity_daily_account_brand_day_idx" ON "member_activity_daily" USING btree ("account_id","brand_id","day","member_id","points","count","one_time","activity_id","service");