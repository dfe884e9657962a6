import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkStatement, insertsPulledThroughCoordinator, loadStatementParser, modifyingCtes } from '../../scripts/tenancy/statement-checker.js';
import { tenancyTablesFromSchema } from '../../scripts/tenancy/tenant-tables.js';
import { temporaryDirectory } from '../support/leftovers.js';

// The checker behind `npm run check:tenancy` (docs/tenancy.md), on statements written here: it
// must accept the shapes the gateway sends and name the one reference a statement leaves open.

const tables = tenancyTablesFromSchema();
const open = (text: string) => checkStatement(text, tables).map((violation) => `${violation.table} as ${violation.reference}`);

beforeAll(loadStatementParser);

describe('the tenant tables', () => {
  it('come from the schema: every table with account_id, and no other', () => {
    expect(tables.tenant).toContain('members');
    expect(tables.tenant).toContain('activity_records');
    expect(tables.tenant).not.toContain('signing_keys');
    expect(tables.global).toContain('signing_keys');
    expect(tables.accounts).toBe('accounts');
  });
});

describe('statements held to one account', () => {
  it.each([
    ['a Drizzle select', 'select "id" from "members" where ("members"."account_id" = $1 and "members"."id" = $2)'],
    ['a join held through the other side', 'select m.id from members m join member_services s on s.member_id = m.id and s.account_id = m.account_id where m.account_id = $1'],
    ['a join by USING', 'select m.id from members m join member_services s using (account_id) where m.account_id = $1 and s.member_id = m.id'],
    ['a left join held in its ON', 'select m.id, o.kind from members m left join optins o on o.account_id = m.account_id and o.member_id = m.id where m.account_id = 7'],
    [
      'a CTE and its use',
      'with picked as (select member_id, account_id from optins where account_id = $1 and brand_id = $2) select m.* from picked p join members m on m.account_id = p.account_id and m.id = p.member_id',
    ],
    ['a CTE named like a table hides it', 'with members as (select 1 as id) select id from members'],
    [
      'a lateral join',
      'select m.id, last.completed_at from members m cross join lateral (select r.completed_at from activity_records r where r.account_id = $1 and r.member_id = m.id order by 1 desc limit 1) last where m.account_id = $1',
    ],
    ['EXISTS tied to the outer query', 'select b.id from brands b where b.account_id = $1 and exists (select 1 from brand_members bm where bm.account_id = b.account_id and bm.brand_id = b.id)'],
    ['IN (subquery) of one account', 'select s.id from segments s where s.account_id in (select account_id from members where account_id = $1) and s.brand_id = 3'],
    [
      'an upsert',
      'insert into score_windows (account_id, window_id, covered_from) values ($1, $2, $3), ($1, $4, $5) on conflict (account_id, window_id) do update set covered_from = excluded.covered_from',
    ],
    [
      'INSERT … SELECT of one account',
      'insert into brand_members (account_id, brand_id, member_id) select account_id, brand_id, member_id from member_activity_daily where account_id = $1 union select account_id, brand_id, member_id from optins where account_id = $1',
    ],
    ['UPDATE … FROM', 'update members m set merged_into_id = t.id from members t where m.account_id = $1 and t.account_id = m.account_id and t.id = $2 and m.id = $3'],
    ['DELETE … USING and RETURNING', 'delete from brand_member_counts c using brand_members b where c.account_id = $1 and b.account_id = c.account_id and b.brand_id = c.brand_id returning c.brand_id'],
    [
      'a data-changing CTE',
      'with gone as (delete from brand_member_rechecks where account_id = $1 returning brand_id) insert into brand_member_counts (account_id, brand_id, members) select $1, brand_id, 0 from gone',
    ],
    ['accounts by id', 'select name from accounts where id = $1'],
    ['global tables', 'select kid from signing_keys where retired_at is null'],
    ['statements without tables', 'select pg_advisory_xact_lock(hashtextextended($1, 0))'],
  ])('accepts %s', (_name, text) => {
    expect(open(text)).toEqual([]);
  });
});

describe('statements that reach other accounts', () => {
  it.each([
    ['a join to members without account_id', 'select s.id from member_services s join members m on m.id = s.member_id where s.account_id = $1', ['members as m']],
    ['a table with no condition at all', 'select count(*) from members', ['members as members']],
    ['a condition under OR', 'select id from members where account_id = $1 or email = $2', ['members as members']],
    ['a left join held only on its kept side', 'select m.id from members m left join optins o on m.account_id = $1 and o.member_id = m.id where o.account_id = $1', ['members as m']],
    ['an open EXISTS', 'select b.id from brands b where b.account_id = $1 and exists (select 1 from brand_members bm where bm.brand_id = b.id)', ['brand_members as bm']],
    ['an open lateral subquery', 'select m.id from members m cross join lateral (select 1 from activity_records r where r.member_id = m.id limit 1) x where m.account_id = $1', ['activity_records as r']],
    ['an open CTE', 'with all_optins as (select member_id from optins) select count(*) from all_optins', ['optins as optins']],
    ['many accounts through ANY', 'select id from members where account_id = any($1)', ['members as members']],
    ['an UPDATE by id only', 'update activity_queue set attempts = attempts + 1 where id = $1', ['activity_queue as activity_queue']],
    ['a DELETE by age only', 'delete from api_hits where hour < $1', ['api_hits as api_hits']],
    ['a statement the check does not read', 'truncate members', ['members as members']],
    ['a MERGE', 'merge into members m using optins o on o.member_id = m.id when matched then do nothing', ['members as m', 'optins as o']],
    ['accounts without id', 'select a.id from accounts a where exists (select 1 from activity_records r where r.account_id = a.id)', ['accounts as a']],
  ])('rejects %s', (_name, text, expected) => {
    expect(open(text)).toEqual(expected);
  });

  it('rejects an INSERT without account_id, or with a value not of one account', () => {
    expect(checkStatement('insert into members (email) values ($1)', tables)[0].problem).toMatch(/does not name account_id/);
    expect(checkStatement('insert into members (account_id, email) values ($1, $2), (default, $3)', tables)[0].problem).toMatch(/INSERT … VALUES/);
    expect(checkStatement('insert into brand_members (account_id, brand_id, member_id) select b.account_id, b.id, $1 from brands b', tables).map((v) => v.problem)).toEqual([
      'no condition on its account_id',
    ]);
    expect(checkStatement('insert into brand_members (account_id, brand_id, member_id) select b.id, b.id, $2 from brands b where b.account_id = $1', tables)[0].problem).toMatch(/INSERT … SELECT/);
  });
});

describe('the audit log, append-only', () => {
  const problems = (text: string) => checkStatement(text, tables).map((violation) => `${violation.table}: ${violation.problem}`);

  it('accepts the insert of an entry and the reads of one account', () => {
    expect(tables.appendOnly).toEqual(new Set(['audit_events']));
    expect(problems('insert into "audit_events" ("account_id", "actor_type", "actor_label", "action") values ($1, $2, $3, $4)')).toEqual([]);
    expect(problems('select "id" from "audit_events" where ("audit_events"."account_id" = $1 and "audit_events"."action" = $2) order by "occurred_at" desc limit $3')).toEqual([]);
  });

  it.each([
    ['an UPDATE', 'update "audit_events" set "details" = $3 where ("audit_events"."account_id" = $1 and "audit_events"."id" = $2)', 'UPDATE'],
    ['a DELETE', 'delete from "audit_events" where ("audit_events"."account_id" = $1 and "audit_events"."target_id" = $2)', 'DELETE'],
    ['a DELETE in a CTE', 'with gone as (delete from audit_events where account_id = $1 returning id) select count(*) from gone', 'DELETE'],
    ['a TRUNCATE', 'truncate audit_events', 'TRUNCATE'],
    [
      'an upsert',
      'insert into audit_events (account_id, actor_type, actor_label, action) values ($1, $2, $3, $4) on conflict (account_id, id) do update set action = excluded.action',
      'INSERT … ON CONFLICT DO UPDATE',
    ],
  ])('rejects %s held to one account', (_name, text, change) => {
    expect(problems(text)).toContain(`audit_events: ${change} of an append-only table (its rows are only ever inserted)`);
  });

  it('leaves other tables and a CTE of that name alone', () => {
    expect(problems('delete from "members" where ("members"."account_id" = $1 and "members"."id" = $2)')).toEqual([]);
    expect(problems('with audit_events as (select 1 as id) select id from audit_events')).toEqual([]);
  });
});

describe('statement shapes Citus refuses on distributed tables', () => {
  const problems = (text: string) => checkStatement(text, tables).map((violation) => violation.problem);

  // Measured on Citus 13.2: each of these ran as 32 tasks, one per shard, where naming the
  // account by value (or EXISTS, which PostgreSQL turns into a join) ran as one.
  it.each([
    [
      'a select-list subquery, as member(id) read its services',
      'select m.id, (select count(*) from member_services s where s.account_id = m.account_id and s.member_id = m.id) from members m where m.account_id = $1 and m.id = $2',
      'member_services as s',
    ],
    [
      'a lateral join',
      'select m.id, x.c from members m cross join lateral (select count(*) c from member_services s where s.account_id = m.account_id and s.member_id = m.id) x where m.account_id = $1',
      'member_services as s',
    ],
    ['an IN subquery', 'select m.id from members m where m.account_id = $1 and m.id in (select s.member_id from member_services s where s.account_id = m.account_id)', 'member_services as s'],
    [
      'a subquery held through a CTE',
      'with p as (select account_id, member_id from optins where account_id = $1) select (select count(*) from members m where m.account_id = p.account_id and m.id = p.member_id) from p',
      'members as m',
    ],
  ])("rejects %s held by the outer row's account only", (_name, text, reference) => {
    expect(checkStatement(text, tables).map((v) => `${v.table} as ${v.reference}: ${v.problem}`)).toEqual([
      `${reference}: held to one account only by an outer query's column, which Citus plans on every shard (name the account by the statement's value)`,
    ]);
    expect(problems(text.replace(/= [mp]\.account_id/, () => '= $1'))).toEqual([]);
  });

  it('accepts EXISTS and NOT EXISTS tied to the outer row, which PostgreSQL makes a join', () => {
    expect(problems('select m.id from members m where m.account_id = $1 and not exists (select 1 from member_services s where s.account_id = m.account_id and s.member_id = m.id)')).toEqual([]);
    expect(problems('update sign_in_tokens t set used_at = $2 where t.account_id = $1 and exists (select 1 from members m where m.account_id = t.account_id and m.id = t.member_id)')).toEqual([]);
    // Not under OR (a subquery per row), nor through a level in between that is not one.
    expect(problems('select m.id from members m where m.account_id = $1 and (m.country = $2 or exists (select 1 from optins o where o.account_id = m.account_id and o.member_id = m.id))')).toHaveLength(1);
    expect(problems('select m.id, (select 1 where exists (select 1 from optins o where o.account_id = m.account_id)) from members m where m.account_id = $1')).toHaveLength(1);
  });

  it('rejects a volatile function in an UPDATE of a tenant table, as the opt-out was written', () => {
    expect(problems('update "optins" set "opted_out_at" = greatest(clock_timestamp(), "optins"."opted_in_at") where ("optins"."account_id" = $1 and "optins"."member_id" = $2)')).toEqual([
      'volatile function clock_timestamp() in an UPDATE of a distributed table (read it first, pass it as a parameter)',
    ]);
    expect(problems('update "optins" set "opted_out_at" = greatest($3::timestamptz, "optins"."opted_in_at") where ("optins"."account_id" = $1 and "optins"."member_id" = $2)')).toEqual([]);
    expect(problems('update "members" set "last_seen_at" = now() where "members"."account_id" = $1 and "members"."id" = $2')).toEqual([]);
  });

  it("rejects a subquery in an INSERT's values, as the opt-in was written", () => {
    expect(
      problems(
        'insert into "optins" ("account_id", "member_id", "kind", "opted_in_at") values ($1, $2, $3, greatest(clock_timestamp(), (select max("optins"."opted_out_at") from "optins" where "optins"."account_id" = $4))) on conflict do nothing',
      ),
    ).toEqual(["subquery in an INSERT's values (read it first, pass it as a parameter)"]);
    expect(problems('insert into "optins" ("account_id", "member_id", "kind", "opted_in_at") values ($1, $2, $3, $4::timestamptz) on conflict do nothing')).toEqual([]);
  });
});

describe('data-modifying CTEs, which Citus plans through the coordinator', () => {
  it('names each, at any depth, and nothing in a statement of plain writes or a reading CTE', () => {
    expect(
      modifyingCtes(`with inserted as (insert into activity_records (account_id, member_id) values ($1, $2) returning *),
        rolled_up as (update member_activity_daily set count = count + 1 where account_id = $1 returning 1)
        select * from (with gone as (delete from timeline_days_stale where account_id = $1 returning day) select day from gone) d`).sort(),
    ).toEqual(['DELETE gone', 'INSERT inserted', 'UPDATE rolled_up']);
    expect(modifyingCtes('with picked as (select member_id from optins where account_id = $1) select * from picked')).toEqual([]);
    expect(modifyingCtes('insert into score_window_counts (account_id, window_id, brand_id, members) select $1, w, b, m from unnest($2::int[], $3::int[], $4::int[]) as c(w, b, m)')).toEqual([]);
  });
});

describe('INSERT … SELECT statements that Citus pulls through the coordinator', () => {
  it('names those whose account_id is a parameter, a constant, an expression or a data-modifying CTE’s, in either arm of a union', () => {
    const unnested = 'from unnest($2::smallint[], $3::int[], $4::int[]) as c(window_id, brand_id, members)';
    expect(insertsPulledThroughCoordinator(`insert into score_window_counts (account_id, window_id, brand_id, members) select $1::int, c.* ${unnested}`)).toEqual([
      'INSERT INTO score_window_counts (account_id from a parameter)',
    ]);
    expect(insertsPulledThroughCoordinator("insert into timeline_days_kept (account_id, day) select 7, d from (values ('2026-01-01'::date)) as v(d)")).toEqual([
      'INSERT INTO timeline_days_kept (account_id from a constant)',
    ]);
    expect(
      insertsPulledThroughCoordinator(
        'with gone as (delete from brand_members where account_id = $1 returning account_id, brand_id) insert into brand_member_counts (account_id, brand_id, members) select account_id, brand_id, -count(*) from gone group by 1, 2',
      ),
    ).toEqual(['INSERT INTO brand_member_counts (rows from a data-modifying CTE)']);
    expect(
      insertsPulledThroughCoordinator(
        'insert into brand_members (account_id, brand_id, member_id) select account_id, brand_id, member_id from member_activity_daily where account_id = $1 union select $1, brand_id, member_id from optins where account_id = $1',
      ),
    ).toEqual(['INSERT INTO brand_members (account_id from a parameter)']);
  });

  it('passes an account_id read from a table, INSERT … VALUES, and statements without an INSERT', () => {
    expect(
      insertsPulledThroughCoordinator(
        'insert into score_window_counts (account_id, window_id, brand_id, members) select k.account_id, c.* from score_window_claims k cross join unnest($2::smallint[], $3::int[], $4::int[]) as c(window_id, brand_id, members) where k.account_id = $1 on conflict do nothing',
      ),
    ).toEqual([]);
    expect(
      insertsPulledThroughCoordinator(
        'insert into brand_members (account_id, brand_id, member_id) select account_id, brand_id, member_id from member_activity_daily where account_id = $1 union select account_id, brand_id, member_id from optins where account_id = $1',
      ),
    ).toEqual([]);
    expect(insertsPulledThroughCoordinator('insert into timeline_days_stale (account_id, day) values ($1, $2), ($1, $3)')).toEqual([]);
    expect(insertsPulledThroughCoordinator('with gone as (delete from brand_members where account_id = $1 returning brand_id) select brand_id, count(*) from gone group by 1')).toEqual([]);
  });
});

describe('npm run check:tenancy on a record', () => {
  it("fails on an INSERT in a CTE, and an INSERT … SELECT pulled through the coordinator, sent by the kept data's writers, and on no other's", async () => {
    const record = temporaryDirectory('statements');
    const pulledInsert =
      'insert into score_window_counts (account_id, window_id, brand_id, members) select $1::int, c.* from unnest($2::smallint[], $3::int[], $4::int[]) as c(window_id, brand_id, members)';
    const insertInCte = (table: string) =>
      `with added as (insert into ${table} (account_id, day) select $1::int, d from unnest($2::date[]) d on conflict do nothing returning day) select count(*) from added`;
    const lines = [
      { sql: insertInCte('timeline_days_stale'), from: 'src/modules/scoring/timeline-days.queries.ts:10' },
      { sql: `${insertInCte('timeline_days_stale')} -- stored with records`, from: 'src/modules/activities/activities.queries.ts:10' },
      { sql: 'with gone as (delete from brand_member_rechecks where account_id = $1 returning member_id) select count(*) from gone', from: 'src/modules/brands/brand-members.queries.ts:10' },
      { sql: pulledInsert, from: 'src/modules/score-windows/score-windows.queries.ts:10' },
      { sql: `${pulledInsert} -- stored with records`, from: 'src/modules/activities/activities.queries.ts:10' },
    ];
    fs.writeFileSync(path.join(record, 'statements-1-0.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
    const failure = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/tenancy/check-statements.ts', record]).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toContain('✗ from src/modules/scoring/timeline-days.queries.ts:10');
    expect(failure?.stdout).toContain('an INSERT in a CTE (INSERT added)');
    expect(failure?.stdout).toContain('✗ from src/modules/score-windows/score-windows.queries.ts:10');
    expect(failure?.stdout).toContain('INSERT INTO score_window_counts (account_id from a parameter) in a kept-data statement');
    expect(failure?.stdout).toContain('5 distinct statements');
    expect(failure?.stdout).toContain('2 failed');
  });
});
