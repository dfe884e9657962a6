CREATE TABLE "login_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "login_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"service_id" integer,
	"application_id" integer,
	"kind" text NOT NULL,
	"network" text NOT NULL,
	"domain" text,
	"ip" text,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_domains" (
	"account_id" integer NOT NULL,
	"service_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"domain" text NOT NULL,
	"registered" boolean DEFAULT false NOT NULL,
	"first_visit" timestamp with time zone DEFAULT now() NOT NULL,
	"last_visit" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_domains_account_id_service_id_domain_pk" PRIMARY KEY("account_id","service_id","domain")
);
--> statement-breakpoint
CREATE TABLE "member_services" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "member_services_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"network" text NOT NULL,
	"uid" text NOT NULL,
	"username" text,
	"user_url" text,
	"token_sealed" text,
	"token_secret_sealed" text,
	"password_hash" text,
	"valid" boolean DEFAULT true NOT NULL,
	"activity_sharing" boolean DEFAULT true NOT NULL,
	"paid_account" boolean DEFAULT false NOT NULL,
	"followers" integer,
	"likes" integer,
	"partner_code" text,
	"partner_id" text,
	"verified_email" text,
	"expires_at" timestamp with time zone,
	"last_login_at" timestamp with time zone,
	"registered_by_application_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "members" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "members_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"uuid" text DEFAULT gen_random_uuid()::text NOT NULL,
	"registered_by_application_id" integer,
	"email" text,
	"verified_email" text,
	"email_verified_at" timestamp with time zone,
	"first_name" text,
	"surname" text,
	"username" text,
	"gender" text,
	"birth_date" date,
	"bio" text,
	"avatar_url" text,
	"address" text,
	"address_line2" text,
	"city" text,
	"state" text,
	"country" text,
	"post_code" text,
	"home_phone" text,
	"mobile_phone" text,
	"website" text,
	"geo_country" text,
	"geo_city" text,
	"geo_region" text,
	"geo_lat" text,
	"geo_long" text,
	"import_code" text,
	"extended" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"access_token_hash" text NOT NULL,
	"access_token_sealed" text NOT NULL,
	"merged_into_id" integer,
	"last_login_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"algorithm" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_jwk_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "login_events" ADD CONSTRAINT "login_events_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_events" ADD CONSTRAINT "login_events_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_events" ADD CONSTRAINT "login_events_service_id_member_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."member_services"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_events" ADD CONSTRAINT "login_events_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_domains" ADD CONSTRAINT "member_domains_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_domains" ADD CONSTRAINT "member_domains_service_id_member_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."member_services"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_domains" ADD CONSTRAINT "member_domains_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_services" ADD CONSTRAINT "member_services_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_services" ADD CONSTRAINT "member_services_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_services" ADD CONSTRAINT "member_services_registered_by_application_id_applications_id_fk" FOREIGN KEY ("registered_by_application_id") REFERENCES "public"."applications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_registered_by_application_id_applications_id_fk" FOREIGN KEY ("registered_by_application_id") REFERENCES "public"."applications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "login_events_account_member_created_idx" ON "login_events" USING btree ("account_id","member_id","created_at");--> statement-breakpoint
CREATE INDEX "login_events_account_created_idx" ON "login_events" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "member_domains_account_member_idx" ON "member_domains" USING btree ("account_id","member_id");--> statement-breakpoint
CREATE INDEX "member_domains_account_domain_idx" ON "member_domains" USING btree ("account_id","domain");--> statement-breakpoint
CREATE UNIQUE INDEX "member_services_account_network_uid_key" ON "member_services" USING btree ("account_id","network","uid");--> statement-breakpoint
CREATE INDEX "member_services_account_member_idx" ON "member_services" USING btree ("account_id","member_id");--> statement-breakpoint
CREATE INDEX "member_services_account_network_username_idx" ON "member_services" USING btree ("account_id","network",lower("username"));--> statement-breakpoint
CREATE INDEX "member_services_account_partner_idx" ON "member_services" USING btree ("account_id","partner_code","partner_id");--> statement-breakpoint
CREATE INDEX "members_account_email_idx" ON "members" USING btree ("account_id",lower("email"));--> statement-breakpoint
CREATE INDEX "members_account_verified_email_idx" ON "members" USING btree ("account_id",lower("verified_email"));--> statement-breakpoint
CREATE UNIQUE INDEX "members_access_token_hash_key" ON "members" USING btree ("access_token_hash");--> statement-breakpoint
CREATE INDEX "members_account_merged_into_idx" ON "members" USING btree ("account_id","merged_into_id");--> statement-breakpoint
CREATE INDEX "members_account_created_idx" ON "members" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "members_account_last_login_idx" ON "members" USING btree ("account_id","last_login_at");