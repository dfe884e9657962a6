/** A WebSocket connection's subscriptions holding a slot, and the key they count against. */
export type SlotHolder = {
  slotKey?: string;
  heldSlots?: Set<string>;
  /** The key whose connection count this connection is in, once accepted at connection_init. */
  connectedAs?: string;
};

/**
 * How many subscriptions a key (an application, across its connections to this gateway) and one
 * connection may have open at once. A slot is taken when a subscription is accepted and given back
 * when it completes, fails or its connection closes, so a key's count never outlives its subscriptions.
 */
export class SubscriptionSlots {
  private readonly byKey = new Map<string, number>();
  private readonly connectionsByKey = new Map<string, number>();

  constructor(private readonly limits: { perKey: number; perConnection: number; connectionsPerKey: number }) {}

  /**
   * Counts an acknowledged connection against its key; when the key has `connectionsPerKey` open
   * already, the refusal's message instead. Each connection costs a socket, its buffers and its
   * keep-alive timer whether or not it subscribes, so subscriptions alone do not bound what a key holds.
   */
  connect(connection: SlotHolder, key: string): string | undefined {
    const count = this.connectionsByKey.get(key) ?? 0;
    if (count >= this.limits.connectionsPerKey) {
      // A close reason holds at most 123 bytes.
      return `An API key may have ${this.limits.connectionsPerKey} WebSocket connections open at once; close one, or subscribe more on one.`;
    }
    connection.connectedAs = key;
    this.connectionsByKey.set(key, count + 1);
    return undefined;
  }

  /** Counts a closed connection out (once; nothing for one that was never counted). */
  disconnect(connection: SlotHolder): void {
    const key = connection.connectedAs;
    if (key === undefined) return;
    connection.connectedAs = undefined;
    const left = (this.connectionsByKey.get(key) ?? 1) - 1;
    if (left > 0) this.connectionsByKey.set(key, left);
    else this.connectionsByKey.delete(key);
  }

  /** WebSocket connections open under `key`. */
  connectionsOf(key: string): number {
    return this.connectionsByKey.get(key) ?? 0;
  }

  /** Takes a slot for subscription `id` of the connection; when none is left, the refusal's message. */
  take(connection: SlotHolder, key: string, id: string): string | undefined {
    const held = (connection.heldSlots ??= new Set());
    if (held.size >= this.limits.perConnection) {
      return `A connection may have ${this.limits.perConnection} subscriptions open at once; complete one first or open another connection.`;
    }
    const count = this.byKey.get(key) ?? 0;
    if (count >= this.limits.perKey) {
      return `An API key may have ${this.limits.perKey} subscriptions open at once on this gateway; complete one first.`;
    }
    connection.slotKey = key;
    held.add(id);
    this.byKey.set(key, count + 1);
    return undefined;
  }

  /** Subscriptions open on this gateway, all keys together. */
  open(): number {
    let total = 0;
    for (const count of this.byKey.values()) total += count;
    return total;
  }

  give(connection: SlotHolder, id: string): void {
    if (!connection.heldSlots?.delete(id) || !connection.slotKey) return;
    const left = (this.byKey.get(connection.slotKey) ?? 1) - 1;
    if (left > 0) this.byKey.set(connection.slotKey, left);
    else this.byKey.delete(connection.slotKey);
  }

  giveAll(connection: SlotHolder): void {
    for (const id of [...(connection.heldSlots ?? [])]) this.give(connection, id);
  }

  /** Subscriptions open under `key`; keys with none are not kept. */
  heldBy(key: string): number {
    return this.byKey.get(key) ?? 0;
  }

  /** Keys with open subscriptions (0 once every connection has closed). */
  get keys(): number {
    return this.byKey.size;
  }
}
