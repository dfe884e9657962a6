CREATE TABLE "score_window_activity_totals" (
	"account_id" integer NOT NULL,
	"window_id" smallint NOT NULL,
	"brand_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"activity_id" integer NOT NULL,
	"service" text NOT NULL,
	"activity_count" integer NOT NULL,
	CONSTRAINT "score_window_activity_totals_pk" PRIMARY KEY("account_id","window_id","brand_id","member_id","activity_id","service")
);
--> statement-breakpoint
ALTER TABLE "score_window_activity_totals" ADD CONSTRAINT "score_window_activity_totals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;