/**
 * The raw limit the benchmark compares Marquee with: a bare Fastify route answering the page of 100
 * members with their services and opt-ins by one hand-written SQL statement through postgres.js,
 * PostgreSQL building the JSON itself.
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

await app.listen({ port: Number(port), host: '127.0.0.1' });
console.error(`raw limit listening on ${port}`);
