import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import type { Logger } from 'pino';
import type { LiveChannel, LiveReceiver } from './live-feed.js';

/** Announcements of committed records: `<account id>:<record id>,<record id>,…`. */
const recordsChannel = 'marquee_live_records';
/** Which accounts each gateway has subscribers for (see Presence). */
const presenceChannel = 'marquee_live_presence';
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const maxPayloadBytes = 7900;
/** A gateway with subscribers repeats its presence this often; one silent for three times as long is forgotten. */
const heartbeatMs = 10_000;
const presenceTtlMs = 3 * heartbeatMs;

/**
 * A presence message: gateway `g` has subscribers for accounts `a` ("*": too many to list, count
 * it in for every account); an empty list withdraws it. `q` asks every other gateway to announce
 * itself now (sent by a gateway whose listening connection has just (re)connected).
 */
interface PresenceMessage {
  g: string;
  a: number[] | '*';
  q?: 1;
}

interface Presence {
  accounts: Set<number> | '*';
  expires: number;
}

/**
 * The live feed's channel on PostgreSQL: one connection of its own per gateway (postgres.js keeps
 * a LISTEN connection apart from its query connection, and reconnects it), so several gateways on
 * one database see each other's records. NOTIFY is sent after the recording transaction commits,
 * on this client's own query connection, never inside the recording transaction: a NOTIFY inside
 * it would serialise the commits of every recording transaction on PostgreSQL's notification lock.
 *
 * So that recording stays free when nobody subscribes, gateways tell each other which accounts they
 * have subscribers for (presence messages, repeated while they last), and a record is announced
 * only when some gateway listens to its account. A subscriber starts receiving once the other
 * gateways have heard its presence, milliseconds after it subscribes.
 */
export class PostgresChannel implements LiveChannel {
  private readonly id = randomUUID();
  private readonly others = new Map<string, Presence>();
  private readonly heartbeat: NodeJS.Timeout;
  private announcing = false;
  /** Whether the last presence this gateway sent listed any account (so an empty one must follow). */
  private present = false;
  private closed = false;

  private constructor(
    private readonly sql: postgres.Sql,
    private readonly receiver: LiveReceiver,
    private readonly log: Logger,
  ) {
    this.heartbeat = setInterval(() => this.beat(), heartbeatMs);
    this.heartbeat.unref();
  }

  static async open(url: string, receiver: LiveReceiver, log: Logger): Promise<PostgresChannel> {
    const sql = postgres(url, {
      max: 1,
      connect_timeout: 5,
      // Reconnect the listener within a second of the server's return (postgres.js waits up to 20 s).
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
      onnotice: () => {},
      connection: { application_name: 'marquee live feed' },
    });
    const channel = new PostgresChannel(sql, receiver, log);
    try {
      await sql.listen(recordsChannel, (payload) => channel.received(payload));
      // Called again after every reconnect: what was said meanwhile was missed, so ask again.
      await sql.listen(
        presenceChannel,
        (payload) => channel.heard(payload),
        () => channel.announce(true),
      );
    } catch (error) {
      log.error({ err: error }, 'live feed: cannot listen on PostgreSQL; subscriptions receive nothing until restart');
    }
    return channel;
  }

  wanted(accountId: number): boolean {
    if (this.receiver.hasSubscribers(accountId)) return true;
    if (!this.others.size) return false;
    const now = Date.now();
    for (const presence of this.others.values()) {
      if (presence.expires > now && (presence.accounts === '*' || presence.accounts.has(accountId))) return true;
    }
    return false;
  }

  send(accountId: number, ids: readonly number[]): void {
    for (const payload of recordPayloads(accountId, ids)) {
      this.sql.notify(recordsChannel, payload).catch((error: unknown) => this.log.warn({ err: error, accountId }, 'live feed: NOTIFY failed'));
    }
  }

  subscribersChanged(): void {
    // Subscriptions come and go in bursts (a client reconnecting): one presence message for a burst.
    if (this.announcing || this.closed) return;
    this.announcing = true;
    setImmediate(() => {
      this.announcing = false;
      if (!this.closed) this.announce(false);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    try {
      if (this.present) await this.sql.notify(presenceChannel, JSON.stringify({ g: this.id, a: [] } satisfies PresenceMessage));
    } catch {
      // The others forget this gateway when its presence expires.
    }
    await this.sql.end({ timeout: 5 });
  }

  private announce(ask: boolean): void {
    const accounts = this.receiver.subscribedAccounts();
    if (!accounts.length && !this.present && !ask) return;
    const listed = JSON.stringify(accounts);
    const message: PresenceMessage = { g: this.id, a: listed.length > maxPayloadBytes - 100 ? '*' : accounts, ...(ask ? { q: 1 as const } : {}) };
    this.present = accounts.length > 0;
    this.sql.notify(presenceChannel, JSON.stringify(message)).catch((error: unknown) => this.log.warn({ err: error }, 'live feed: presence not sent'));
  }

  private beat(): void {
    const now = Date.now();
    for (const [gateway, presence] of this.others) if (presence.expires <= now) this.others.delete(gateway);
    if (this.present) this.announce(false);
  }

  private heard(payload: string): void {
    let message: PresenceMessage;
    try {
      message = JSON.parse(payload) as PresenceMessage;
    } catch {
      return;
    }
    if (message.g === this.id) return;
    if (message.a === '*' || message.a.length) {
      this.others.set(message.g, { accounts: message.a === '*' ? '*' : new Set(message.a), expires: Date.now() + presenceTtlMs });
    } else {
      this.others.delete(message.g);
    }
    if (message.q && this.present) this.subscribersChanged();
  }

  private received(payload: string): void {
    const colon = payload.indexOf(':');
    const accountId = Number(payload.slice(0, colon));
    const ids = payload
      .slice(colon + 1)
      .split(',')
      .map(Number);
    if (Number.isSafeInteger(accountId) && ids.every(Number.isSafeInteger)) this.receiver.deliver(accountId, ids);
  }
}

/** `<account>:<id>,<id>,…` payloads under PostgreSQL's limit, as few as will hold the ids. */
export function recordPayloads(accountId: number, ids: readonly number[]): string[] {
  const payloads: string[] = [];
  const prefix = `${accountId}:`;
  let current = prefix;
  for (const id of ids) {
    const part = String(id);
    if (current.length + part.length + 1 > maxPayloadBytes && current !== prefix) {
      payloads.push(current);
      current = prefix;
    }
    current += current === prefix ? part : `,${part}`;
  }
  if (current !== prefix) payloads.push(current);
  return payloads;
}
