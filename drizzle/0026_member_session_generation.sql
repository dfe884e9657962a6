ALTER TABLE "members" ADD COLUMN "access_token_issued_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "session_generation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sign_in_tokens" ADD COLUMN "session_generation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "widget_sessions" ADD COLUMN "session_generation" integer DEFAULT 0 NOT NULL;