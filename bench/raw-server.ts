/**
 * The raw limits the benchmark compares Marquee with: bare Fastify routes, each answering by one
 * hand-written SQL statement through postgres.js, PostgreSQL building the JSON itself:
 * - `/members`: the page of 100 members with their services and opt-ins;
 * - `/member/:id`: one member with its services, what `GET /v1.1/member/[id]` reads. Its ratio
 *   between two engines is the engine's own, with no gateway in it (docs/scaling.md).
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

await app.listen({ port: Number(port), host: '127.0.0.1' });
console.error(`raw limit listening on ${port}`);
