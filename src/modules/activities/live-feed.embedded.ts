import type { Database } from '../../db/client.js';
import type { LiveChannel, LiveReceiver } from './live-feed.js';

/**
 * The live feed's channel on the embedded database: every gateway over it runs in this process
 * (one, outside tests), so an announcement is handed to each of their feeds in memory. Whether
 * anyone listens is known exactly and at once.
 */
export class EmbeddedChannel implements LiveChannel {
  private static readonly buses = new WeakMap<Database, Set<LiveReceiver>>();

  private constructor(
    private readonly bus: Set<LiveReceiver>,
    private readonly receiver: LiveReceiver,
  ) {}

  static attach(db: Database, receiver: LiveReceiver): EmbeddedChannel {
    let bus = EmbeddedChannel.buses.get(db);
    if (!bus) EmbeddedChannel.buses.set(db, (bus = new Set()));
    bus.add(receiver);
    return new EmbeddedChannel(bus, receiver);
  }

  wanted(accountId: number): boolean {
    for (const receiver of this.bus) if (receiver.hasSubscribers(accountId)) return true;
    return false;
  }

  send(accountId: number, ids: readonly number[]): void {
    for (const receiver of this.bus) receiver.deliver(accountId, ids);
  }

  subscribersChanged(): void {}

  async close(): Promise<void> {
    this.bus.delete(this.receiver);
  }
}
