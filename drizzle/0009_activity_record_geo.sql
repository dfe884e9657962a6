ALTER TABLE "activity_records" ADD COLUMN "geo_country" text;--> statement-breakpoint
ALTER TABLE "activity_records" ADD COLUMN "geo_city" text;--> statement-breakpoint
ALTER TABLE "activity_records" ADD COLUMN "geo_region" text;--> statement-breakpoint
ALTER TABLE "activity_records" ADD COLUMN "geo_lat" text;--> statement-breakpoint
ALTER TABLE "activity_records" ADD COLUMN "geo_long" text;