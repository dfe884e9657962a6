import { FixedBuffer, Repeater } from '@graphql-yoga/subscription';
import type { Logger } from 'pino';
import type { Database, DatabaseHandle, Executor } from '../../db/client.js';
import { runCounted } from '../../db/roundtrips.js';
import { RequestStatements } from '../../db/request-statements.js';
import type { CompiledFilter } from '../../filters/compile.js';
import { AppError } from '../../core/errors.js';
import type { RecordRow } from './activities.queries.js';
import { EmbeddedChannel } from './live-feed.embedded.js';
import { PostgresChannel } from './live-feed.postgres.js';
import { liveRecords } from './live-feed.queries.js';

/**
 * How committed records travel between the gateways that share a database (see docs/activities.md,
 * "Live feed"): the embedded database has an in-process bus, PostgreSQL LISTEN/NOTIFY.
 */
export interface LiveChannel {
  /** Whether a subscriber anywhere (this gateway or another) listens to the account's records. */
  wanted(accountId: number): boolean;
  /** Announces committed records to every gateway that listens, this one included. Never throws. */
  send(accountId: number, ids: readonly number[]): void;
  /** This gateway's subscribed accounts changed: other gateways are told. */
  subscribersChanged(): void;
  close(): Promise<void>;
}

/** What a gateway's channel calls back: announced records to deliver, and who subscribes here. */
export interface LiveReceiver {
  deliver(accountId: number, ids: readonly number[]): void;
  subscribedAccounts(): number[];
  hasSubscribers(accountId: number): boolean;
}

/** Undelivered records a subscriber may have before it is ended (a reader that stopped reading). */
const maxBacklog = 10_000;

interface Subscriber {
  filter: CompiledFilter;
  /** Subscribers with the same filter arguments share one query per announcement. */
  filterKey: string;
  buffer: FixedBuffer;
  push(record: RecordRow): Promise<unknown>;
  stop(error?: unknown): unknown;
}

/**
 * One gateway's live activity feed: its subscribers (the `activityRecorded` subscriptions of its
 * WebSocket connections), grouped by account, and the channel that brings it every gateway's
 * committed records. An announcement carries record ids only; each gateway with subscribers of
 * that account reads the records once per distinct filter (liveRecords) and pushes them to each
 * subscriber, one announcement at a time, so subscribers see records in commit order per gateway.
 */
export class LiveFeed implements LiveReceiver {
  private readonly subscribers = new Map<number, Set<Subscriber>>();
  private delivering: Promise<void> = Promise.resolve();
  private channel: LiveChannel | undefined;

  private constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly statementTimeoutMs: number,
  ) {}

  /**
   * The gateway's feed over its database; on PostgreSQL its listening connection is open when this resolves.
   * `statementTimeoutMs` bounds the statement that reads a batch's records under one filter, as a request's (0: none).
   */
  static async open(database: DatabaseHandle, log: Logger, { statementTimeoutMs = 0 }: { statementTimeoutMs?: number } = {}): Promise<LiveFeed> {
    const feed = new LiveFeed(database.db, log, statementTimeoutMs);
    feed.channel = database.kind === 'postgres' && database.url ? await PostgresChannel.open(database.url, feed, log) : EmbeddedChannel.attach(database.db, feed);
    attach(database.db, feed);
    return feed;
  }

  wanted(accountId: number): boolean {
    return this.channel?.wanted(accountId) ?? false;
  }

  send(accountId: number, ids: readonly number[]): void {
    this.channel?.send(accountId, ids);
  }

  hasSubscribers(accountId: number): boolean {
    return this.subscriberCount(accountId) > 0;
  }

  /** The account's subscriptions on this gateway. */
  subscriberCount(accountId: number): number {
    return this.subscribers.get(accountId)?.size ?? 0;
  }

  subscribedAccounts(): number[] {
    return [...this.subscribers.keys()];
  }

  /**
   * The records of `accountId` committed from now on that `filter` keeps, as an iterator that
   * graphql-ws ends (return) when the client completes or disconnects.
   */
  subscribe(accountId: number, filterKey: string, filter: CompiledFilter): AsyncIterableIterator<RecordRow> {
    const buffer = new FixedBuffer(maxBacklog);
    return new Repeater<RecordRow>(async (push, stop) => {
      const subscriber: Subscriber = { filter, filterKey, buffer, push, stop };
      let group = this.subscribers.get(accountId);
      if (!group) this.subscribers.set(accountId, (group = new Set()));
      group.add(subscriber);
      if (group.size === 1) this.channel?.subscribersChanged();
      await stop;
      group.delete(subscriber);
      if (!group.size) {
        this.subscribers.delete(accountId);
        this.channel?.subscribersChanged();
      }
    }, buffer);
  }

  deliver(accountId: number, ids: readonly number[]): void {
    if (!this.hasSubscribers(accountId) || !ids.length) return;
    this.delivering = this.delivering.then(() => this.deliverNow(accountId, ids).catch((error: unknown) => this.log.warn({ err: error, accountId }, 'live feed: records not delivered')));
  }

  private async deliverNow(accountId: number, ids: readonly number[]): Promise<void> {
    const byFilter = new Map<string, Subscriber[]>();
    for (const subscriber of this.subscribers.get(accountId) ?? []) {
      const group = byFilter.get(subscriber.filterKey);
      if (group) group.push(subscriber);
      else byFilter.set(subscriber.filterKey, [subscriber]);
    }
    for (const group of byFilter.values()) {
      // Deliveries run one after the other: a filter's statement that ran long would hold every subscriber's records back.
      const rows = await runCounted({ count: 0, statements: new RequestStatements(this.statementTimeoutMs) }, () => liveRecords(this.db, group[0].filter, ids));
      for (const subscriber of group) {
        for (const row of rows) {
          if (subscriber.buffer.full) {
            subscriber.stop(new AppError('RATE_LIMITED', `The subscription fell ${maxBacklog} records behind and was ended; subscribe again.`));
            break;
          }
          void subscriber.push(row);
        }
      }
    }
  }

  /** Ends every subscription and closes the channel (the listening connection on PostgreSQL). */
  async close(): Promise<void> {
    detach(this.db, this);
    for (const group of this.subscribers.values()) for (const subscriber of group) subscriber.stop();
    await this.delivering;
    await this.channel?.close();
  }
}

/**
 * The feeds of the gateways over each database object of this process: what the recording code
 * publishes through, without a gateway at hand. Usually one; tests start several over one database.
 */
const feedsByDatabase = new WeakMap<object, Set<LiveFeed>>();

function attach(db: Database, feed: LiveFeed): void {
  let feeds = feedsByDatabase.get(db);
  if (!feeds) feedsByDatabase.set(db, (feeds = new Set()));
  feeds.add(feed);
}

function detach(db: Database, feed: LiveFeed): void {
  feedsByDatabase.get(db)?.delete(feed);
}

/**
 * Announces records of one account just committed on `db` (call it after the commit, never inside
 * the transaction). When no subscriber anywhere listens to the account it costs a map lookup and
 * sends nothing; otherwise one channel message (a NOTIFY on PostgreSQL), not awaited by the caller.
 */
export function publishRecorded(db: Executor, accountId: number, records: readonly { id: number }[]): void {
  if (!records.length) return;
  const feeds = feedsByDatabase.get(db);
  if (!feeds) return;
  for (const feed of feeds) {
    if (feed.wanted(accountId)) {
      // Every feed's channel reaches every gateway of the database: one is enough.
      feed.send(
        accountId,
        records.map((record) => record.id),
      );
      return;
    }
  }
}
