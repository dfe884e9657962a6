CREATE TABLE "brand_member_counts" (
	"account_id" integer NOT NULL,
	"brand_id" integer NOT NULL,
	"members" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "brand_member_rechecks" (
	"account_id" integer NOT NULL,
	"brand_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	CONSTRAINT "brand_member_rechecks_account_id_brand_id_member_id_pk" PRIMARY KEY("account_id","brand_id","member_id")
);
--> statement-breakpoint
CREATE TABLE "brand_members" (
	"account_id" integer NOT NULL,
	"brand_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	CONSTRAINT "brand_members_account_id_brand_id_member_id_pk" PRIMARY KEY("account_id","brand_id","member_id")
);
--> statement-breakpoint
ALTER TABLE "brand_member_counts" ADD CONSTRAINT "brand_member_counts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "brand_members" ADD CONSTRAINT "brand_members_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "brand_member_counts_account_brand_idx" ON "brand_member_counts" USING btree ("account_id","brand_id");