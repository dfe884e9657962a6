import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/**
 * What a test file makes outside its own memory (temporary directories, some holding API keys, and
 * gateway processes it spawns) is removed when the file ends, whether its tests passed or not, and
 * again when the test process exits, so a failing or interrupted run leaves nothing listening and
 * nothing on disk. Loaded for every file by vitest.config.ts.
 */
const directories = new Set<string>();
const processes = new Set<ChildProcess>();

/** A fresh directory under the system's temporary folder, removed when the test file ends. */
export function temporaryDirectory(name: string): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), `marquee-${name}-`));
  directories.add(directory);
  return directory;
}

/** Kills `child` when the test file ends, unless it has exited by then. */
export function killAtEnd(child: ChildProcess): ChildProcess {
  processes.add(child);
  child.once('exit', () => processes.delete(child));
  return child;
}

function removeLeftovers(): void {
  for (const child of processes) child.kill('SIGKILL');
  processes.clear();
  for (const directory of directories) {
    try {
      // A process that outlived its test may still be writing there: retry, then leave it.
      fs.rmSync(directory, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch (error) {
      console.warn(`could not remove ${directory}: ${(error as Error).message}`);
    }
  }
  directories.clear();
}

afterAll(removeLeftovers);
process.once('exit', removeLeftovers);
