import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/leftovers.js';

/** `npm run check:migrations` on folders of its own: what it refuses, with the rule named, and what it lets through. */

const run = promisify(execFile);

/** Squawk's report without its colours and its links to the rules' pages. */
function plain(output: string): string {
  // eslint-disable-next-line no-control-regex
  return output.replace(/\x1b\]8;;[^\x1b]*\x1b\\/g, '').replace(/\x1b\[[0-9;]*m/g, '');
}

/** Each rule the report names, with the file it found broken: Squawk writes the place on the line after the rule. */
function violations(output: string): string[] {
  return [...output.matchAll(/warning\[([a-z-]+)\].*\n.*╭▸ (?:.*\/)?([^/:]+):\d+:\d+/g)].map(([, rule, file]) => `${rule} in ${file}`);
}

/** Writes `migrations` (file name → SQL) to a new folder and checks it: the exit status and the report. */
async function checkMigrations(migrations: Record<string, string>): Promise<{ status: number; output: string }> {
  const folder = temporaryDirectory('migration-lint');
  for (const [name, text] of Object.entries(migrations)) fs.writeFileSync(path.join(folder, name), text);
  const { status, output } = await run(process.execPath, ['--import', 'tsx', 'scripts/check-migrations.ts', folder]).then(
    ({ stdout, stderr }) => ({ status: 0, output: stdout + stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ status: error.code ?? -1, output: `${error.stdout}${error.stderr}` }),
  );
  return { status, output: plain(output) };
}

describe('npm run check:migrations', { timeout: 30_000 }, () => {
  it('refuses a plain index on an existing table and a foreign key added without NOT VALID, naming each rule and its file', async () => {
    const { status, output } = await checkMigrations({
      '0038_members_nickname_index.sql': 'CREATE INDEX "members_nickname_idx" ON "members" USING btree ("account_id","nickname");',
      '0039_brands_owner.sql': 'ALTER TABLE "brands" ADD CONSTRAINT "brands_owner_fk" FOREIGN KEY ("account_id","owner_id") REFERENCES "public"."members"("account_id","id");',
    });
    expect(status).toBe(1);
    expect(violations(output)).toEqual([
      'require-concurrent-index-creation in 0038_members_nickname_index.sql',
      'constraint-missing-not-valid in 0039_brands_owner.sql',
      'adding-foreign-key-constraint in 0039_brands_owner.sql',
    ]);
    expect(output).toContain('checked: 0038_members_nickname_index, 0039_brands_owner');
  });

  it('accepts the safe forms: a concurrent index, a nullable column, a new table with its keys, a key validated in a later migration', async () => {
    const { status, output } = await checkMigrations({
      '0038_members_nickname.sql': 'ALTER TABLE "members" ADD COLUMN "nickname_length" integer;',
      '0039_members_nickname_index.sql': 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "members_nickname_idx" ON "members" USING btree ("account_id","nickname_length");',
      // As drizzle-kit writes a new table: in one transaction, its keys and index lock no table that serves.
      '0040_badges.sql': [
        'CREATE TABLE "badges" (\n\t"account_id" integer NOT NULL,\n\t"id" integer GENERATED ALWAYS AS IDENTITY (sequence name "badges_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),\n\t"member_id" integer NOT NULL,\n\t"earned_at" timestamp with time zone DEFAULT now() NOT NULL,\n\tCONSTRAINT "badges_account_id_id_pk" PRIMARY KEY("account_id","id")\n);\n',
        'ALTER TABLE "badges" ADD CONSTRAINT "badges_member_fk" FOREIGN KEY ("account_id","member_id") REFERENCES "public"."members"("account_id","id") ON DELETE cascade ON UPDATE no action;',
        'CREATE INDEX "badges_member_idx" ON "badges" USING btree ("account_id","member_id");',
      ].join('--> statement-breakpoint\n'),
      '0041_brands_owner.sql': 'ALTER TABLE "brands" ADD CONSTRAINT "brands_owner_fk" FOREIGN KEY ("account_id","owner_id") REFERENCES "public"."members"("account_id","id") NOT VALID;',
      '0042_brands_owner_validated.sql': 'ALTER TABLE "brands" VALIDATE CONSTRAINT "brands_owner_fk";',
    });
    expect(output).toContain('migrations newer than 0037_fan_search_indexes pass: 0038_members_nickname, 0039_members_nickname_index, 0040_badges, 0041_brands_owner, 0042_brands_owner_validated');
    expect(status).toBe(0);
  });

  it('takes a concurrent index as drizzle-kit writes it, and refuses any other statement beside it', async () => {
    const drizzleKit = 'CREATE INDEX CONCURRENTLY "members_nickname_idx" ON "members" USING btree ("account_id","nickname");';
    expect(await checkMigrations({ '0038_members_nickname_index.sql': drizzleKit })).toMatchObject({ status: 0 });
    const { status, output } = await checkMigrations({
      '0038_members_nickname.sql': ['ALTER TABLE "members" ADD COLUMN "nickname_length" integer;', drizzleKit].join('--> statement-breakpoint\n'),
    });
    expect(status).toBe(1);
    expect(output).toContain('0038_members_nickname.sql: a migration with a concurrent index statement holds index statements only');
    expect(output).toContain('ALTER TABLE "members" ADD COLUMN "nickname_length" integer;');
  });

  it('leaves the migrations up to the baseline as they were written', async () => {
    const { status, output } = await checkMigrations({
      '0037_members_nickname_index.sql': 'CREATE INDEX "members_nickname_idx" ON "members" USING btree ("account_id","nickname");',
    });
    expect(output).toContain('newer than 0037_fan_search_indexes: nothing to lint');
    expect(status).toBe(0);
  });
});
