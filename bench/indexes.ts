/**
 * Bulk loads go faster into tables without their secondary indexes. These helpers read the
 * definitions the migrations created (from the catalogue, `pg_indexes` and `pg_constraint`), drop
 * the indexes, and build them again afterwards from the same definitions. Primary keys stay.
 */
import type postgres from 'postgres';

export interface SavedIndex {
  table: string;
  name: string;
  /** `pg_get_indexdef`, as `pg_indexes.indexdef` shows it. */
  definition: string;
  /** Set when the index backs a unique constraint: the constraint is dropped and added back. */
  constraint: string | null;
}

/** The secondary indexes of the tables (public schema), with the constraint each backs, if any. */
export async function secondaryIndexes(sql: postgres.Sql, tables: string[]): Promise<SavedIndex[]> {
  const rows = await sql<{ table: string; name: string; definition: string; constraint: string | null }[]>`
    select i.tablename as table, i.indexname as name, i.indexdef as definition, pg_get_constraintdef(c.oid) as constraint
    from pg_indexes i
    join pg_class ic on ic.relname = i.indexname and ic.relnamespace = 'public'::regnamespace
    join pg_index x on x.indexrelid = ic.oid
    left join pg_constraint c on c.conindid = ic.oid and c.conrelid = x.indrelid and c.contype in ('u', 'x')
    where i.schemaname = 'public' and i.tablename = any(${tables}) and not x.indisprimary
    order by i.tablename, i.indexname`;
  return rows.map((row) => ({ ...row }));
}

export async function dropIndexes(sql: postgres.Sql, indexes: SavedIndex[]): Promise<void> {
  for (const index of indexes) {
    if (index.constraint) await sql.unsafe(`alter table public.${ident(index.table)} drop constraint ${ident(index.name)}`);
    else await sql.unsafe(`drop index public.${ident(index.name)}`);
  }
}

/**
 * Builds one saved index again. A unique constraint is built as its index first (which other
 * builds on the table may run beside), then attached to the constraint, which takes only a moment.
 */
export async function restoreIndex(sql: postgres.Sql, index: SavedIndex): Promise<void> {
  const [present] = await sql`select 1 from pg_indexes where schemaname = 'public' and indexname = ${index.name}`;
  if (!present) await sql.unsafe(index.definition);
  if (index.constraint) {
    const [attached] = await sql`select 1 from pg_constraint where conname = ${index.name} and conrelid = ${`public.${index.table}`}::regclass`;
    if (!attached) {
      const kind = index.constraint.startsWith('UNIQUE') ? 'unique' : null;
      if (!kind) throw new Error(`cannot attach constraint ${index.name}: ${index.constraint}`);
      await sql.unsafe(`alter table public.${ident(index.table)} add constraint ${ident(index.name)} unique using index ${ident(index.name)}`);
    }
  }
}

/** Throws unless the tables have exactly the saved indexes and constraints again. */
export async function checkIndexes(sql: postgres.Sql, tables: string[], saved: SavedIndex[]): Promise<void> {
  const key = (index: SavedIndex) => JSON.stringify([index.table, index.name, index.definition, index.constraint]);
  const now = new Set((await secondaryIndexes(sql, tables)).map(key));
  const before = new Set(saved.map(key));
  const missing = [...before].filter((entry) => !now.has(entry));
  const extra = [...now].filter((entry) => !before.has(entry));
  if (missing.length || extra.length) throw new Error(`indexes differ from the schema's: missing ${missing.join(', ') || 'none'}; unexpected ${extra.join(', ') || 'none'}`);
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The foreign-key indexes PostGraphile's documentation asks for ("always add indexes to your
 * foreign keys": a reverse relation is read by its foreign key alone). The page the peers answer
 * joins member_services and optins by member_id only, which the schema's indexes (account first,
 * as every lookup of the gateway is scoped by account) do not serve. The gateway does not need
 * them, so the schema does not carry them: `bench/run.ts --peer-indexes` makes them in the
 * benchmark database for its run and drops them afterwards.
 */
export const peerForeignKeyIndexes = [
  { name: 'bench_peer_member_services_member_id_idx', table: 'member_services', column: 'member_id' },
  { name: 'bench_peer_optins_member_id_idx', table: 'optins', column: 'member_id' },
] as const;

export async function createPeerIndexes(sql: postgres.Sql): Promise<void> {
  for (const index of peerForeignKeyIndexes) {
    await sql.unsafe(`create index if not exists ${ident(index.name)} on public.${ident(index.table)} (${ident(index.column)})`);
    await sql.unsafe(`analyze public.${ident(index.table)}`);
  }
}

export async function dropPeerIndexes(sql: postgres.Sql): Promise<void> {
  for (const index of peerForeignKeyIndexes) await sql.unsafe(`drop index if exists public.${ident(index.name)}`);
}
