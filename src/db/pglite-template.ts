import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrationsFolder, projectRoot } from './paths.js';
import { applyMigrations } from './migrations.js';

/**
 * A fresh PGlite spends about five seconds in initdb. `npm install` (the `prepare` script) saves a
 * migrated, empty database once, twice over: as a tarball, which in-memory test databases load,
 * and as a data directory, which a new embedded database on disk copies (a file copy, then an
 * ordinary open: a second faster than unpacking the tarball through PGlite). The names carry a hash
 * of the migrations, so a template from older migrations is simply not found, and the database is
 * then made the slow way. Migrations still run after loading: the template is an accelerator,
 * never a source of truth.
 */
function templateBase(): string {
  const hash = createHash('sha256');
  for (const name of fs
    .readdirSync(migrationsFolder)
    .filter((file) => file.endsWith('.sql'))
    .sort()) {
    hash.update(name).update(fs.readFileSync(path.join(migrationsFolder, name)));
  }
  return path.join(projectRoot, 'node_modules', '.cache', 'marquee', `pglite-${hash.digest('hex').slice(0, 16)}`);
}

export function templateFile(): string {
  return `${templateBase()}.tar`;
}

function templateDirectory(): string {
  return `${templateBase()}.pgdata`;
}

/** Copies the template data directory to `dataDir` (which must not exist yet); false when there is none. */
export function copyTemplateInto(dataDir: string): boolean {
  const source = templateDirectory();
  if (!fs.existsSync(path.join(source, 'PG_VERSION'))) return false;
  fs.cpSync(source, dataDir, { recursive: true });
  return true;
}

export function readTemplate(): Blob | undefined {
  const file = templateFile();
  return fs.existsSync(file) ? new Blob([fs.readFileSync(file)]) : undefined;
}

/** Writes both forms of the template unless they exist; returns the tarball's path. */
export async function ensureTemplate(): Promise<string> {
  const file = await ensureTemplateFile();
  const directory = templateDirectory();
  if (!fs.existsSync(path.join(directory, 'PG_VERSION'))) {
    // Unpacked by PGlite itself into a directory of its own, then renamed into place whole.
    const partial = `${directory}.${process.pid}.partial`;
    fs.rmSync(partial, { recursive: true, force: true });
    const client = await PGlite.create(partial, { loadDataDir: new Blob([fs.readFileSync(file)]) });
    await client.close();
    fs.rmSync(directory, { recursive: true, force: true });
    fs.renameSync(partial, directory);
  }
  removeOutdatedTemplates();
  return file;
}

/** Templates of earlier migrations are never read again. */
function removeOutdatedTemplates(): void {
  const current = path.basename(templateBase());
  const folder = path.dirname(templateBase());
  for (const name of fs.readdirSync(folder)) {
    if (name.startsWith('pglite-') && !name.startsWith(current)) fs.rmSync(path.join(folder, name), { recursive: true, force: true });
  }
}

async function ensureTemplateFile(): Promise<string> {
  const file = templateFile();
  if (fs.existsSync(file)) return file;
  const client = await PGlite.create();
  try {
    // As every start applies them (a concurrent index's migration runs outside a transaction).
    await applyMigrations(drizzle(client));
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
