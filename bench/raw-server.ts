/**
 * The raw limits the benchmark compares Marquee with: bare Fastify routes, each answering by one
 * hand-written SQL statement through postgres.js, PostgreSQL building the JSON itself:
 * - `/members`: the page of 100 members with their services and opt-ins;
 * - `/member/:id`: one member with its services, what `GET /v1.1/member/[id]` reads. Its ratio
 *   between two engines is the engine's own, with no gateway in it (docs/scaling.md).
 * - `POST /records`: a batch of records (`{ input: [{ activityId, memberId, marker }] }`, the
 *   variables of the `recordActivities` scenario), stored as the gateway stores a batch of records
 *   of now: in one statement that holds the members and the kept windows' claim, inserts the
 *   records with their definition's points, network and brand (repeats skipped), adds them to the
 *   daily rollup, and keeps the kept data that follows new rows (stale timeline days, new brand
 *   members). The kept windows are folded by the gateway's worker, which runs beside it in the
 *   benchmark and folds these records as it folds its own.
 *   tsx bench/raw-server.ts <database url> <port> <account id> <pool size>
 */
import Fastify from 'fastify';
import postgres from 'postgres';

const [url, port, accountId, poolSize] = process.argv.slice(2);
const sql = postgres(url, { max: Number(poolSize), onnotice: () => {} });
const app = Fastify();

app.get('/members', async (_request, reply) => {
  const [row] = await sql`
    select coalesce(json_agg(page order by page.id), '[]')::text as body from (
      select m.id, m.email, m.first_name as "firstName",
        (select coalesce(json_agg(json_build_object('network', s.network, 'userId', s.uid, 'valid', s.valid) order by s.id), '[]')
           from member_services s where s.account_id = ${Number(accountId)} and s.member_id = m.id) as services,
        (select coalesce(json_agg(json_build_object('id', o.id, 'kind', o.kind) order by o.id), '[]')
           from optins o where o.account_id = ${Number(accountId)} and o.member_id = m.id and o.opted_out_at is null) as optins
      from members m
      where m.account_id = ${Number(accountId)} and m.merged_into_id is null
      order by m.id
      limit 100
    ) page`;
  reply.header('content-type', 'application/json');
  return `{"data":{"members":${row.body}}}`;
});

app.get<{ Params: { id: string } }>('/member/:id', async (request, reply) => {
  const [row] = await sql`
    select json_build_object('id', m.id, 'email', m.email, 'firstName', m.first_name, 'surname', m.surname, 'username', m.username,
        'gender', m.gender, 'country', m.country, 'city', m.city, 'verifiedEmail', m.verified_email,
        'services', (select coalesce(json_agg(json_build_object('id', s.id, 'network', s.network, 'userId', s.uid, 'username', s.username,
            'valid', s.valid, 'activitySharing', s.activity_sharing, 'followers', s.followers, 'likes', s.likes) order by s.id), '[]')
          from member_services s where s.account_id = ${Number(accountId)} and s.member_id = m.id))::text as body
    from members m
    where m.account_id = ${Number(accountId)} and m.id = ${Number(request.params.id)}`;
  reply.header('content-type', 'application/json');
  if (!row) return reply.code(404).send('{"error":"not found"}');
  return `{"member":${row.body}}`;
});

app.post<{ Body: { input: { activityId: string; memberId: string; marker: string }[] } }>('/records', async (request, reply) => {
  const records = request.body.input;
  const account = Number(accountId);
  const [row] = await sql`
    with input as (
      select * from unnest(${records.map((r) => Number(r.memberId))}::int[], ${records.map((r) => Number(r.activityId))}::int[], ${records.map((r) => r.marker)}::text[])
        with ordinality as i(member_id, activity_id, marker, ord)
    ),
    held as (
      select m.id, m.merged_into_id from members m where m.account_id = ${account} and m.id in (select member_id from input) order by m.id for key share of m
    ),
    claim as (select c.claimed_until from score_window_claims c where c.account_id = ${account} for share of c),
    inserted as (
      insert into activity_records (account_id, member_id, activity_id, brand_id, service, marker, points, one_time, completed_at)
      select ${account}::int, i.member_id, d.id, d.brand_id, d.service, i.marker, d.points, d.one_time, now()
      from input i
      join held m on m.id = i.member_id and m.merged_into_id is null
      join activity_definitions d on d.account_id = ${account} and d.id = i.activity_id and d.deleted_at is null
      where (select coalesce(bool_and(claimed_until <= now()), true) from claim)
      order by i.ord
      on conflict do nothing
      returning member_id, activity_id, brand_id, service, one_time, points, completed_at
    ),
    rolled_up as (
      insert into member_activity_daily (account_id, member_id, day, activity_id, brand_id, service, one_time, count, points)
      select ${account}::int, member_id, day, activity_id, brand_id, service, one_time, count, points from (
        select member_id, (completed_at at time zone 'UTC')::date as day, activity_id, brand_id, service,
          bool_or(one_time) as one_time, count(*)::int as count, sum(points)::int as points
        from inserted group by member_id, day, activity_id, brand_id, service
      ) per_key
      order by member_id, day, activity_id, brand_id nulls first, service collate "C" nulls first
      on conflict (account_id, member_id, day, activity_id, brand_id, service) do update
        set count = member_activity_daily.count + excluded.count, points = member_activity_daily.points + excluded.points
    ),
    stale_days as (
      insert into timeline_days_stale (account_id, day)
      select distinct ${account}::int, (completed_at at time zone 'UTC')::date from inserted where not one_time and brand_id is not null
      order by 2
      on conflict do nothing
    ),
    pairs_added as (
      insert into brand_members (account_id, brand_id, member_id)
      select distinct ${account}::int, brand_id, member_id from inserted where brand_id is not null
      order by 2, 3
      on conflict do nothing
      returning brand_id
    ),
    pairs_counted as (
      insert into brand_member_counts (account_id, brand_id, members)
      select ${account}::int, brand_id, count(*) from pairs_added group by brand_id
    )
    select count(*)::int as created from inserted`;
  reply.header('content-type', 'application/json');
  return `{"data":{"recordActivities":{"created":${row.created}}}}`;
});

await app.listen({ port: Number(port), host: '127.0.0.1' });
console.error(`raw limit listening on ${port}`);
