import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder, projectRoot } from './paths.js';

/**
 * A fresh PGlite spends about five seconds in initdb. `npm install` (the `prepare` script) saves a
 * migrated, empty database as a tarball once; a new embedded database, and every test database,
 * starts from it in well under a second. The file name carries a hash of the migrations, so a
 * template from older migrations is simply not found, and the database is then made the slow way.
 * Migrations still run after loading, so the template is an accelerator, never a source of truth.
 */
export function templateFile(): string {
  const hash = createHash('sha256');
  for (const name of fs.readdirSync(migrationsFolder).filter((file) => file.endsWith('.sql')).sort()) {
    hash.update(name).update(fs.readFileSync(path.join(migrationsFolder, name)));
  }
  return path.join(projectRoot, 'node_modules', '.cache', 'marquee', `pglite-${hash.digest('hex').slice(0, 16)}.tar`);
}

export function readTemplate(): Blob | undefined {
  const file = templateFile();
  return fs.existsSync(file) ? new Blob([fs.readFileSync(file)]) : undefined;
}

/** Writes the template unless it exists; returns its path. */
export async function ensureTemplate(): Promise<string> {
  const file = templateFile();
  if (fs.existsSync(file)) return file;
  const client = await PGlite.create();
  try {
    await migrate(drizzle(client), { migrationsFolder });
    const dump = await client.dumpDataDir('none');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Written under a temporary name and renamed, so a concurrent reader never sees half a file.
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
  } finally {
    await client.close();
  }
  return file;
}
