ALTER TABLE "activity_records" DROP CONSTRAINT "activity_records_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "member_activity_daily" DROP CONSTRAINT "member_activity_daily_account_id_accounts_id_fk";
