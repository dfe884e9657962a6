CREATE TABLE "brands" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "brands_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"official_website_url" text,
	"wikipedia_url" text,
	"image_url" text,
	"hash_tag" text,
	"networks" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"custom" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "optins" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "optins_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"kind" text NOT NULL,
	"brand_id" integer,
	"segment_id" integer,
	"opted_in_at" timestamp with time zone DEFAULT now() NOT NULL,
	"opted_out_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "segment_members" (
	"account_id" integer NOT NULL,
	"segment_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "segment_members_account_id_segment_id_member_id_pk" PRIMARY KEY("account_id","segment_id","member_id")
);
--> statement-breakpoint
CREATE TABLE "segments" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "segments_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"brand_id" integer,
	"name" text NOT NULL,
	"label" text,
	"kind" text DEFAULT 'list' NOT NULL,
	"filter" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "activity_definitions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "activity_definitions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"brand_id" integer,
	"name" text NOT NULL,
	"short_name" text,
	"type" text NOT NULL,
	"service" text,
	"points" integer DEFAULT 1 NOT NULL,
	"one_time" boolean DEFAULT false NOT NULL,
	"tracking" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "activity_queue" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "activity_queue_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"application_id" integer,
	"payload" jsonb NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"enqueued_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "activity_records" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "activity_records_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"activity_id" integer NOT NULL,
	"brand_id" integer,
	"service" text,
	"application_id" integer,
	"marker" text,
	"points" integer NOT NULL,
	"one_time" boolean DEFAULT false NOT NULL,
	"link" text,
	"media" text,
	"category" text,
	"content" jsonb,
	"value" double precision,
	"completed_at" timestamp with time zone NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_activity_daily" (
	"account_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"day" date NOT NULL,
	"activity_id" integer NOT NULL,
	"brand_id" integer,
	"service" text,
	"one_time" boolean DEFAULT false NOT NULL,
	"count" integer NOT NULL,
	"points" integer NOT NULL,
	CONSTRAINT "member_activity_daily_key" UNIQUE NULLS NOT DISTINCT("account_id","member_id","day","activity_id","brand_id","service")
);
--> statement-breakpoint
ALTER TABLE "brands" ADD CONSTRAINT "brands_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "optins" ADD CONSTRAINT "optins_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "optins" ADD CONSTRAINT "optins_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "optins" ADD CONSTRAINT "optins_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "optins" ADD CONSTRAINT "optins_segment_id_segments_id_fk" FOREIGN KEY ("segment_id") REFERENCES "public"."segments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_members" ADD CONSTRAINT "segment_members_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_members" ADD CONSTRAINT "segment_members_segment_id_segments_id_fk" FOREIGN KEY ("segment_id") REFERENCES "public"."segments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_members" ADD CONSTRAINT "segment_members_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_definitions" ADD CONSTRAINT "activity_definitions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_definitions" ADD CONSTRAINT "activity_definitions_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_queue" ADD CONSTRAINT "activity_queue_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_queue" ADD CONSTRAINT "activity_queue_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_records" ADD CONSTRAINT "activity_records_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_records" ADD CONSTRAINT "activity_records_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_records" ADD CONSTRAINT "activity_records_activity_id_activity_definitions_id_fk" FOREIGN KEY ("activity_id") REFERENCES "public"."activity_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_records" ADD CONSTRAINT "activity_records_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_records" ADD CONSTRAINT "activity_records_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_activity_daily" ADD CONSTRAINT "member_activity_daily_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_activity_daily" ADD CONSTRAINT "member_activity_daily_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_activity_daily" ADD CONSTRAINT "member_activity_daily_activity_id_activity_definitions_id_fk" FOREIGN KEY ("activity_id") REFERENCES "public"."activity_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_activity_daily" ADD CONSTRAINT "member_activity_daily_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "brands_account_slug_key" ON "brands" USING btree ("account_id","slug") WHERE "brands"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "brands_account_type_idx" ON "brands" USING btree ("account_id","type");--> statement-breakpoint
CREATE UNIQUE INDEX "optins_account_member_list_current_key" ON "optins" USING btree ("account_id","member_id","kind",coalesce("brand_id", 0),coalesce("segment_id", 0)) WHERE "optins"."opted_out_at" is null;--> statement-breakpoint
CREATE INDEX "optins_account_brand_idx" ON "optins" USING btree ("account_id","brand_id","member_id");--> statement-breakpoint
CREATE INDEX "optins_account_segment_idx" ON "optins" USING btree ("account_id","segment_id","member_id");--> statement-breakpoint
CREATE INDEX "segment_members_account_member_idx" ON "segment_members" USING btree ("account_id","member_id");--> statement-breakpoint
CREATE INDEX "segments_account_brand_idx" ON "segments" USING btree ("account_id","brand_id");--> statement-breakpoint
CREATE INDEX "activity_definitions_account_brand_idx" ON "activity_definitions" USING btree ("account_id","brand_id");--> statement-breakpoint
CREATE INDEX "activity_queue_account_enqueued_idx" ON "activity_queue" USING btree ("account_id","enqueued_at");--> statement-breakpoint
CREATE UNIQUE INDEX "activity_records_account_marker_key" ON "activity_records" USING btree ("account_id","marker") WHERE "activity_records"."marker" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "activity_records_account_member_one_time_key" ON "activity_records" USING btree ("account_id","member_id","activity_id") WHERE "activity_records"."one_time";--> statement-breakpoint
CREATE INDEX "activity_records_account_completed_idx" ON "activity_records" USING btree ("account_id","completed_at");--> statement-breakpoint
CREATE INDEX "activity_records_account_recorded_idx" ON "activity_records" USING btree ("account_id","recorded_at");--> statement-breakpoint
CREATE INDEX "activity_records_account_member_completed_idx" ON "activity_records" USING btree ("account_id","member_id","completed_at");--> statement-breakpoint
CREATE INDEX "activity_records_account_brand_completed_idx" ON "activity_records" USING btree ("account_id","brand_id","completed_at");--> statement-breakpoint
CREATE INDEX "activity_records_account_activity_completed_idx" ON "activity_records" USING btree ("account_id","activity_id","completed_at");--> statement-breakpoint
CREATE INDEX "member_activity_daily_account_day_idx" ON "member_activity_daily" USING btree ("account_id","day");--> statement-breakpoint
CREATE INDEX "member_activity_daily_account_brand_day_idx" ON "member_activity_daily" USING btree ("account_id","brand_id","day");