CREATE TABLE "score_window_groups" (
	"account_id" integer NOT NULL,
	"window_id" smallint NOT NULL,
	"brand_id" integer NOT NULL,
	"dimension" text NOT NULL,
	"key" text NOT NULL,
	"members" integer NOT NULL,
	"activity_count" integer NOT NULL,
	CONSTRAINT "score_window_groups_account_id_window_id_brand_id_dimension_key_pk" PRIMARY KEY("account_id","window_id","brand_id","dimension","key")
);
--> statement-breakpoint
ALTER TABLE "score_window_groups" ADD CONSTRAINT "score_window_groups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;