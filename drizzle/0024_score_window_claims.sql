CREATE TABLE "score_window_claims" (
	"account_id" integer PRIMARY KEY NOT NULL,
	"claimed_until" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "score_window_claims" ADD CONSTRAINT "score_window_claims_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;