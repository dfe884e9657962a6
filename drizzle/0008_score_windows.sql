CREATE TABLE "score_window_counts" (
	"account_id" integer NOT NULL,
	"window_id" smallint NOT NULL,
	"brand_id" integer NOT NULL,
	"members" integer NOT NULL,
	CONSTRAINT "score_window_counts_account_id_window_id_brand_id_pk" PRIMARY KEY("account_id","window_id","brand_id")
);
--> statement-breakpoint
CREATE TABLE "score_window_totals" (
	"account_id" integer NOT NULL,
	"window_id" smallint NOT NULL,
	"brand_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"points" integer NOT NULL,
	"activity_count" integer NOT NULL,
	CONSTRAINT "score_window_totals_account_id_window_id_brand_id_member_id_pk" PRIMARY KEY("account_id","window_id","brand_id","member_id")
);
--> statement-breakpoint
CREATE TABLE "score_windows" (
	"account_id" integer NOT NULL,
	"window_id" smallint NOT NULL,
	"covered_from" timestamp (6) with time zone NOT NULL,
	"covered_until" timestamp (6) with time zone NOT NULL,
	CONSTRAINT "score_windows_account_id_window_id_pk" PRIMARY KEY("account_id","window_id")
);
--> statement-breakpoint
ALTER TABLE "score_window_counts" ADD CONSTRAINT "score_window_counts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "score_window_totals" ADD CONSTRAINT "score_window_totals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "score_windows" ADD CONSTRAINT "score_windows_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "score_window_totals_ranking_idx" ON "score_window_totals" USING btree ("account_id","window_id","brand_id","points" DESC NULLS LAST,"member_id","activity_count");