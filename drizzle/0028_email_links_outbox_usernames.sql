CREATE TABLE "email_outbox" (
	"id" integer GENERATED ALWAYS AS IDENTITY (sequence name "email_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"application_id" integer,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"sender_name" text,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_outbox_pkey" PRIMARY KEY("account_id","id")
);
--> statement-breakpoint
CREATE TABLE "member_email_links" (
	"id" integer GENERATED ALWAYS AS IDENTITY (sequence name "member_email_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"application_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"purpose" text NOT NULL,
	"email" text NOT NULL,
	"secret_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_email_links_pkey" PRIMARY KEY("account_id","id")
);
--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_email_links" ADD CONSTRAINT "member_email_links_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_email_links" ADD CONSTRAINT "member_email_links_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_email_links" ADD CONSTRAINT "member_email_links_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_outbox_account_due_idx" ON "email_outbox" USING btree ("account_id","next_attempt_at") WHERE "email_outbox"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "email_outbox_account_created_idx" ON "email_outbox" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "member_email_links_account_member_idx" ON "member_email_links" USING btree ("account_id","member_id","purpose");--> statement-breakpoint
CREATE INDEX "member_email_links_account_expires_idx" ON "member_email_links" USING btree ("account_id","expires_at");--> statement-breakpoint
CREATE INDEX "members_account_username_idx" ON "members" USING btree ("account_id",lower("username"));