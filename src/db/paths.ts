import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root: found upwards from this file, whether it runs from src/db or bundled in dist. */
export const projectRoot = findUpwards(path.dirname(fileURLToPath(import.meta.url)), 'drizzle/meta/_journal.json');

export const migrationsFolder = path.join(projectRoot, 'drizzle');

function findUpwards(from: string, marker: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, marker))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No ${marker} above ${from}.`);
  }
}
