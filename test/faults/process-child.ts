// Run by process-handlers.test.ts in a child process: installs the gateway's process handlers,
// provokes one failure (named by the first argument) and reports whether the process lived on.
import { installProcessHandlers } from '../../src/process-handlers.js';

const line = (level: string) => (object: { err?: unknown }, message: string) => console.log(JSON.stringify({ level, message, err: object.err instanceof Error ? object.err.message : String(object.err) }));
installProcessHandlers({ error: line('error'), warn: line('warn'), fatal: line('fatal') });

const mode = process.argv[2];
if (mode === 'rejection') {
  void Promise.reject(new Error('nobody awaited this'));
} else if (mode === 'type-fetch') {
  // What postgres.js 3.4.9 rejects when a new connection is lost during its type fetch (porsager/postgres#1192).
  const lost = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  Object.defineProperty(lost, 'query', { value: 'select b.oid, b.typarray from pg_catalog.pg_type a left join pg_catalog.pg_type b on b.oid = a.typelem' });
  void Promise.reject(lost);
} else if (mode === 'driver-fault' || mode === 'exception') {
  setImmediate(() => {
    if (mode === 'exception') throw new Error('a bug');
    // What postgres.js 3.4.9 throws (porsager/postgres#1208), with the frame that identifies it.
    const fault = new TypeError("Cannot read properties of null (reading 'write')");
    fault.stack = `${fault.name}: ${fault.message}\n    at Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)\n    at process.processImmediate (node:internal/timers:483:21)`;
    throw fault;
  });
}
setTimeout(() => {
  console.log(JSON.stringify({ level: 'info', message: 'alive' }));
  process.exit(0);
}, 300);
