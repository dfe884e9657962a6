import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'process-child.ts');

/** Runs the child with tsx; resolves with its exit code and the JSON lines it printed. */
function runChild(mode: string): Promise<{ code: number; lines: { level: string; message: string; err?: string }[] }> {
  return new Promise((resolve, reject) => {
    // Node's ExecFileException is an Error whose code is the exit code when the child ran.
    execFile(process.execPath, ['--import', 'tsx', child, mode], { timeout: 20_000 }, (error: (Error & { code?: string | number | null }) | null, stdout) => {
      if (error && typeof error.code !== 'number') return reject(error);
      const lines = stdout
        .split('\n')
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text));
      resolve({ code: error ? Number(error.code) : 0, lines });
    });
  });
}

describe('process handlers', () => {
  it('log an unhandled rejection and keep the process running', async () => {
    const { code, lines } = await runChild('rejection');
    expect(lines).toContainEqual({ level: 'error', message: 'unhandled promise rejection; the process keeps running', err: 'nobody awaited this' });
    expect(lines.at(-1)).toMatchObject({ message: 'alive' });
    expect(code).toBe(0);
  });

  it("log postgres.js's unawaited type fetch on a lost connection as a warning, and keep running", async () => {
    const { code, lines } = await runChild('type-fetch');
    expect(lines).toEqual([
      { level: 'warn', message: expect.stringContaining('porsager/postgres#1192'), err: 'read ECONNRESET' },
      { level: 'info', message: 'alive' },
    ]);
    expect(code).toBe(0);
  });

  it("survive postgres.js's write to a closed socket, logged as a warning", async () => {
    const { code, lines } = await runChild('driver-fault');
    expect(lines[0]).toMatchObject({ level: 'warn', message: expect.stringContaining('porsager/postgres#1208') });
    expect(lines.at(-1)).toMatchObject({ message: 'alive' });
    expect(code).toBe(0);
  });

  it('end the process with 1 after any other uncaught exception, logged as fatal', async () => {
    const { code, lines } = await runChild('exception');
    expect(lines).toEqual([{ level: 'fatal', message: 'uncaught exception; exiting', err: 'a bug' }]);
    expect(code).toBe(1);
  });
});
