// The cluster as the front tier sees it: a ring of shard clients. A command goes to the shard that
// owns its route key, or to every shard when it has none (listings gathered across shards).
import { routeKey, type Command } from '../contract/commands.js';
import type { ShardAddress } from '../config/config.js';
import { Ring } from './ring.js';
import { ShardClient, type CallOptions, type LatencyObserver } from './shard-client.js';

export class Cluster {
  readonly ring: Ring;
  private readonly clients = new Map<number, ShardClient>();

  constructor(shards: readonly ShardAddress[], observe?: LatencyObserver) {
    for (const s of shards) this.clients.set(s.id, new ShardClient(s.id, s.target, observe));
    this.ring = new Ring(this.clients.keys());
  }

  shardOf(key: string): ShardClient {
    return this.clients.get(this.ring.shardFor(key))!;
  }

  call<T>(command: Command, options?: CallOptions): Promise<T> {
    const key = routeKey(command);
    if (key === null) throw new Error(`${command.type} goes to every shard; use broadcast()`);
    return this.shardOf(key).call<T>(command, options);
  }

  broadcast<T>(command: Command, options?: CallOptions): Promise<T[]> {
    return Promise.all([...this.clients.values()].map((c) => c.call<T>(command, options)));
  }

  async waitForReady(timeoutMs: number): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.waitForReady(timeoutMs)));
  }

  async healthy(): Promise<boolean> {
    const checks = await Promise.all([...this.clients.values()].map((c) => c.check()));
    return checks.every(Boolean);
  }

  /**
   * Graceful stop: every parked long-poll is answered (timed out) rather than cut, then this
   * resolves once their answers are back or `timeoutMs` passes.
   */
  async drainWaits(timeoutMs: number): Promise<void> {
    for (const c of this.clients.values()) c.cancelWaits();
    const end = Date.now() + timeoutMs;
    while (Date.now() < end && [...this.clients.values()].some((c) => c.waitsInFlight > 0)) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  get shards(): ShardClient[] {
    return [...this.clients.values()];
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
  }
}
