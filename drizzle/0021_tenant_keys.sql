/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'login_events'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "login_events" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'member_services'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "member_services" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'members'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "members" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'brands'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "brands" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'optins'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "optins" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'segments'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "segments" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'activity_definitions'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "activity_definitions" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'activity_queue'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "activity_queue" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'activity_records'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "activity_records" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'presave_jobs'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "presave_jobs" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'presave_results'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "presave_results" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'sign_in_tokens'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "sign_in_tokens" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
/* 
    Unfortunately in current drizzle-kit version we can't automatically get name for primary key.
    We are working on making it available!

    Meanwhile you can:
        1. Check pk name in your database, by running
            SELECT constraint_name FROM information_schema.table_constraints
            WHERE table_schema = 'public'
                AND table_name = 'widget_sessions'
                AND constraint_type = 'PRIMARY KEY';
        2. Uncomment code below and paste pk name manually
        
    Hope to release this update as soon as possible
*/

-- ALTER TABLE "widget_sessions" DROP CONSTRAINT "<constraint_name>";--> statement-breakpoint
ALTER TABLE "login_events" ADD CONSTRAINT "login_events_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "member_services" ADD CONSTRAINT "member_services_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "brands" ADD CONSTRAINT "brands_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "optins" ADD CONSTRAINT "optins_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "activity_definitions" ADD CONSTRAINT "activity_definitions_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "activity_queue" ADD CONSTRAINT "activity_queue_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "activity_records" ADD CONSTRAINT "activity_records_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "presave_jobs" ADD CONSTRAINT "presave_jobs_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "presave_results" ADD CONSTRAINT "presave_results_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "sign_in_tokens" ADD CONSTRAINT "sign_in_tokens_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD CONSTRAINT "widget_sessions_pkey" PRIMARY KEY("account_id","id");--> statement-breakpoint
ALTER TABLE "login_events" ADD CONSTRAINT "login_events_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_events" ADD CONSTRAINT "login_events_service_fk" FOREIGN KEY ("account_id","service_id") REFERENCES "public"."member_services"("account_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_domains" ADD CONSTRAINT "member_domains_service_fk" FOREIGN KEY ("account_id","service_id") REFERENCES "public"."member_services"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_domains" ADD CONSTRAINT "member_domains_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_services" ADD CONSTRAINT "member_services_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "optins" ADD CONSTRAINT "optins_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "optins" ADD CONSTRAINT "optins_brand_fk" FOREIGN KEY ("account_id","brand_id") REFERENCES "public"."brands"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "optins" ADD CONSTRAINT "optins_segment_fk" FOREIGN KEY ("account_id","segment_id") REFERENCES "public"."segments"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_members" ADD CONSTRAINT "segment_members_segment_fk" FOREIGN KEY ("account_id","segment_id") REFERENCES "public"."segments"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segment_members" ADD CONSTRAINT "segment_members_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_brand_fk" FOREIGN KEY ("account_id","brand_id") REFERENCES "public"."brands"("account_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_definitions" ADD CONSTRAINT "activity_definitions_brand_fk" FOREIGN KEY ("account_id","brand_id") REFERENCES "public"."brands"("account_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_records" ADD CONSTRAINT "activity_records_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_records" ADD CONSTRAINT "activity_records_activity_fk" FOREIGN KEY ("account_id","activity_id") REFERENCES "public"."activity_definitions"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "activity_records" ADD CONSTRAINT "activity_records_brand_fk" FOREIGN KEY ("account_id","brand_id") REFERENCES "public"."brands"("account_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_activity_daily" ADD CONSTRAINT "member_activity_daily_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_activity_daily" ADD CONSTRAINT "member_activity_daily_activity_fk" FOREIGN KEY ("account_id","activity_id") REFERENCES "public"."activity_definitions"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_activity_daily" ADD CONSTRAINT "member_activity_daily_brand_fk" FOREIGN KEY ("account_id","brand_id") REFERENCES "public"."brands"("account_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "presave_jobs" ADD CONSTRAINT "presave_jobs_segment_fk" FOREIGN KEY ("account_id","segment_id") REFERENCES "public"."segments"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "presave_results" ADD CONSTRAINT "presave_results_job_fk" FOREIGN KEY ("account_id","job_id") REFERENCES "public"."presave_jobs"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "presave_results" ADD CONSTRAINT "presave_results_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sign_in_tokens" ADD CONSTRAINT "sign_in_tokens_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD CONSTRAINT "widget_sessions_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_queue_id_idx" ON "activity_queue" USING btree ("id");