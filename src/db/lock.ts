import fs from 'node:fs';
import path from 'node:path';

/**
 * The embedded database is a directory that only one process may open. The server and the CLI take
 * this lock first, so running the CLI beside a running server fails with a clear message instead
 * of corrupting the data.
 */
export function lockDataDir(dataDir: string, owner: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'marquee.lock');
  const holder = readHolder(file);
  if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
    throw new Error(`The embedded database in ${dataDir} is in use by ${holder.owner} (pid ${holder.pid}). ` + 'Stop it first, or point DATABASE_URL at PostgreSQL to share a database.');
  }
  fs.writeFileSync(file, JSON.stringify({ pid: process.pid, owner }));
  return () => {
    if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
}

function readHolder(file: string): { pid: number; owner: string } | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number; owner: string };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
