// Run by database-down.test.ts in a child process, because postgres.js's closed-socket write
// (porsager/postgres#1208) is an uncaught exception, which the test runner would report as a
// failure of its own. Opens the database at argv[2] with the gateway's process handlers, runs
// transactions from 10 workers, prints `loading`, and on a line `check` on stdin reports whether
// transactions succeed again and how many driver faults were survived.
import readline from 'node:readline';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client.js';
import { installProcessHandlers } from '../../src/process-handlers.js';

let faults = 0;
let rejections = 0;
installProcessHandlers({
  error: () => void (rejections += 1),
  warn: () => void (faults += 1),
  fatal: (object, message) => console.log(JSON.stringify({ fatal: message, err: String((object as { err?: unknown }).err) })),
});

const database = await openDatabase({ kind: 'postgres', url: process.argv[2], readUrl: undefined, poolSize: 5 });
await database.db.execute(sql`create table if not exists load (id serial primary key, at timestamptz default now())`);
let lastSuccessAt = 0;
let stop = false;
const worker = async () => {
  while (!stop) {
    try {
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into load default values`);
        await tx.execute(sql`select pg_sleep(0.005)`);
        await tx.execute(sql`select count(*) from load`);
      });
      lastSuccessAt = performance.now();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
};
const workers = Array.from({ length: 10 }, worker);
console.log(JSON.stringify({ loading: true }));

for await (const line of readline.createInterface({ input: process.stdin })) {
  if (line.trim() !== 'check') continue;
  const asked = performance.now();
  while (lastSuccessAt < asked && performance.now() - asked < 3000) await new Promise((resolve) => setTimeout(resolve, 20));
  stop = true;
  await Promise.race([Promise.all(workers), new Promise((resolve) => setTimeout(resolve, 3000))]);
  console.log(JSON.stringify({ recovered: lastSuccessAt >= asked, recoveredMs: Math.round(lastSuccessAt - asked), faults, rejections }));
  await database.close().catch(() => {});
  process.exit(0);
}
