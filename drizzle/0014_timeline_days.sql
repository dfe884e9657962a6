CREATE TABLE "timeline_days" (
	"account_id" integer NOT NULL,
	"brand_id" integer NOT NULL,
	"day" date NOT NULL,
	"service" text NOT NULL,
	"records" integer NOT NULL,
	"members" integer NOT NULL,
	CONSTRAINT "timeline_days_account_id_brand_id_day_service_pk" PRIMARY KEY("account_id","brand_id","day","service")
);
--> statement-breakpoint
CREATE TABLE "timeline_days_kept" (
	"account_id" integer NOT NULL,
	"day" date NOT NULL,
	CONSTRAINT "timeline_days_kept_account_id_day_pk" PRIMARY KEY("account_id","day")
);
--> statement-breakpoint
CREATE TABLE "timeline_days_stale" (
	"account_id" integer NOT NULL,
	"day" date NOT NULL,
	CONSTRAINT "timeline_days_stale_account_id_day_pk" PRIMARY KEY("account_id","day")
);
--> statement-breakpoint
ALTER TABLE "timeline_days" ADD CONSTRAINT "timeline_days_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timeline_days_kept" ADD CONSTRAINT "timeline_days_kept_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timeline_days_stale" ADD CONSTRAINT "timeline_days_stale_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;