CREATE TABLE "presave_jobs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "presave_jobs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"segment_id" integer NOT NULL,
	"application_id" integer,
	"items" jsonb NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"runs" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "presave_results" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "presave_results_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"job_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"network" text,
	"item" text,
	"status" text NOT NULL,
	"reason" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "presave_results_job_member_network_key" UNIQUE NULLS NOT DISTINCT("job_id","member_id","network")
);
--> statement-breakpoint
ALTER TABLE "presave_jobs" ADD CONSTRAINT "presave_jobs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "presave_jobs" ADD CONSTRAINT "presave_jobs_segment_id_segments_id_fk" FOREIGN KEY ("segment_id") REFERENCES "public"."segments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "presave_jobs" ADD CONSTRAINT "presave_jobs_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "presave_results" ADD CONSTRAINT "presave_results_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "presave_results" ADD CONSTRAINT "presave_results_job_id_presave_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."presave_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "presave_results" ADD CONSTRAINT "presave_results_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "presave_jobs_account_segment_idx" ON "presave_jobs" USING btree ("account_id","segment_id");--> statement-breakpoint
CREATE INDEX "presave_results_account_member_saved_idx" ON "presave_results" USING btree ("account_id","member_id","item") WHERE "presave_results"."status" = 'saved';