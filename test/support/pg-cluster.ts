import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where the PostgreSQL server binaries are looked for; PG_BIN overrides. */
const candidates = [process.env.PG_BIN, '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/14/bin'];

/** The directory holding initdb, postgres and pg_ctl, or undefined when this machine has none. */
export function postgresBinaries(): string | undefined {
  return candidates.find((dir): dir is string => !!dir && ['initdb', 'postgres', 'pg_ctl'].every((bin) => fs.existsSync(path.join(dir, bin))));
}

/**
 * A private PostgreSQL cluster for fault tests: its own data directory and port, so a test can
 * kill and restart it without touching any other server. initdb and postgres refuse to run as
 * root, so as root they run as the `postgres` OS user.
 */
export interface PgCluster {
  readonly port: number;
  readonly dataDir: string;
  /** A connection URL for a database of this cluster (`postgres` unless named). */
  url(database?: string): string;
  /** Starts the server on the same data directory and port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** `kill -9` of the postmaster, then waits until its children are gone too (they notice within moments). */
  kill(): Promise<void>;
  /** A fast shutdown (`pg_ctl stop -m fast`). */
  stop(): Promise<void>;
  /** The postmaster's pid while it runs. */
  pid(): number | undefined;
  /** Stops the server, whatever state it is in, and removes the data directory. Never throws. */
  destroy(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

function command(bin: string, file: string, args: string[]): [string, string[]] {
  const full = path.join(bin, file);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', full, ...args]] : [full, args];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return children;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** initdb a new cluster in a temporary directory, start it, and return its handle. */
export async function startPgCluster(options: { bin?: string } = {}): Promise<PgCluster> {
  const bin = options.bin ?? postgresBinaries();
  if (!bin) throw new Error('PostgreSQL server binaries not found (set PG_BIN)');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'marquee-pg-'));
  const dataDir = path.join(root, 'data');
  const logFile = path.join(root, 'server.log');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const uid = Number(stdout.trim());
    const { stdout: gidOut } = await run('id', ['-g', 'postgres']);
    const gid = Number(gidOut.trim());
    for (const target of [root, dataDir]) fs.chownSync(target, uid, gid);
  }
  const port = await freePort();
  await run(...command(bin, 'initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']), { timeout: 60_000 });

  // fsync off is safe against a killed server (the kernel keeps its writes); synchronous_commit
  // stays on, or a kill -9 would lose the last commits, which fault tests check are kept.
  const serverOptions = [`-p ${port}`, '-c listen_addresses=127.0.0.1', `-k ${root}`, '-c fsync=off', '-c full_page_writes=off'].join(' ');
  let postmaster: number | undefined;

  const readPid = (): number | undefined => {
    try {
      const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return pid > 0 && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  };

  const cluster: PgCluster = {
    port,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      await run(...command(bin, 'pg_ctl', ['start', '-w', '-t', '30', '-D', dataDir, '-l', logFile, '-o', serverOptions]), { timeout: 40_000 });
      postmaster = readPid();
      if (!postmaster) throw new Error(`PostgreSQL did not start; see ${logFile}`);
    },
    async kill() {
      const pid = postmaster ?? readPid();
      if (!pid) return;
      const children = childrenOf(pid);
      process.kill(pid, 'SIGKILL');
      postmaster = undefined;
      // Backends and auxiliary processes exit when they notice the postmaster is gone; a restart
      // before that would find the shared memory still in use and refuse.
      await waitUntil(() => !alive(pid) && children.every((child) => !alive(child)), 10_000, 'the killed server processes to exit');
    },
    async stop() {
      if (!readPid()) return;
      await run(...command(bin, 'pg_ctl', ['stop', '-w', '-t', '30', '-m', 'fast', '-D', dataDir]), { timeout: 40_000 });
      postmaster = undefined;
    },
    pid: () => postmaster ?? readPid(),
    async destroy() {
      try {
        const pid = readPid();
        if (pid) {
          const children = childrenOf(pid);
          process.kill(pid, 'SIGKILL');
          await waitUntil(() => !alive(pid) && children.every((child) => !alive(child)), 10_000, 'the server processes to exit').catch(() => {});
        }
      } catch {
        // Already gone.
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
