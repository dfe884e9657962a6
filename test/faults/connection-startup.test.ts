import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { databaseUnavailable, isDriverTypeFetchFault } from '../../src/db/errors.js';
import { executeRows } from '../../src/db/rows.js';
import { databaseUrl } from '../support/database.js';

/**
 * A connection that dies right after the server accepted it, before its first statement is
 * answered: what a server restarted under load does to the connections the pool was opening. The
 * statement that was waiting for it fails as the database being unavailable (or is answered on the
 * next connection), and the next one succeeds. The driver's own first statement on the connection,
 * its fetch of the server's array types, fails where no code can catch it (porsager/postgres#1192):
 * that unhandled rejection, and only that one, is what `isDriverTypeFetchFault` recognises, and the
 * gateway's process handlers log it as a warning (process-handlers.test.ts). PostgreSQL only: the
 * embedded database has no connections.
 */
const adminUrl = process.env.TEST_DATABASE_URL;

/** A TCP proxy to the server that, when armed, resets the next connection at its first statement. */
function droppingProxy(upstream: URL) {
  let armed = false;
  let dropped = 0;
  const server = net.createServer((client) => {
    const dropThis = armed;
    armed = false;
    const toServer = net.connect(Number(upstream.port || 5432), upstream.hostname);
    let messages = 0;
    client.on('data', (chunk) => {
      messages += 1;
      // The first message is the startup packet (trust authentication asks for nothing more); the
      // next is the connection's first statement.
      if (dropThis && messages === 2) {
        dropped += 1;
        client.resetAndDestroy();
        toServer.destroy();
        return;
      }
      toServer.write(chunk);
    });
    toServer.on('data', (chunk) => client.write(chunk));
    client.on('error', () => toServer.destroy());
    toServer.on('error', () => client.destroy());
    client.on('close', () => toServer.destroy());
    toServer.on('close', () => client.destroy());
  });
  return {
    async listen(): Promise<number> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as net.AddressInfo).port;
    },
    arm() {
      armed = true;
    },
    dropped: () => dropped,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!adminUrl)('a connection that dies before its first statement is answered', () => {
  const name = `marquee_startup_${randomBytes(6).toString('hex')}`;
  const proxy = droppingProxy(new URL(adminUrl ?? 'postgres://127.0.0.1'));
  let admin: postgres.Sql;
  let database: DatabaseHandle;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    admin = postgres(adminUrl!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(databaseUrl(adminUrl!, name));
    url.hostname = '127.0.0.1';
    url.port = String(await proxy.listen());
    database = await openDatabase({ kind: 'postgres', url: url.toString(), readUrl: undefined, poolSize: 2 });
  });

  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await database?.close();
    await proxy.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  it("fails its statement as the database being unavailable, the next succeeds, and the only unhandled rejection is the driver's type fetch", async () => {
    proxy.arm();
    const first = await executeRows(database.db, sql`select 1 as one`).then(
      () => 'answered',
      (error: unknown) => error,
    );
    expect(proxy.dropped()).toBe(1);
    expect(first === 'answered' || databaseUnavailable(first), String(first)).toBe(true);
    const [next] = await executeRows<{ one: number }>(database.db, sql`select 1 as one`);
    expect(next).toEqual({ one: 1 });
    // An unhandled rejection is reported after the microtasks of the turn it happened in.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(unhandled.length).toBeGreaterThan(0);
    expect(unhandled.filter((reason) => !isDriverTypeFetchFault(reason))).toEqual([]);
  });
});
