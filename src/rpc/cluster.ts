// The cluster as the front tier sees it: a Placement of shard clients. A command goes to the shard
// that owns its route key, or to every shard when it has none (listings gathered across shards).
// A `moved` answer (the slot changed owner) is re-sent to the new owner once the map shows it; a
// parked long-poll is re-sent with the same `since` and the time it has left.
import { routeKey, type Command } from '../contract/commands.js';
import type { ShardAddress } from '../config/config.js';
import { MailcueError } from '../errors/registry.js';
import { StaticPlacement, type Placement } from './placement.js';
import type { CallOptions, LatencyObserver, ShardClient } from './shard-client.js';
import type { TlsMaterial } from './tls.js';

/** How often one command follows `moved` before the caller sees 503 with Retry-After. */
const MOVED_ATTEMPTS = 5;
/** How long to wait for the map to show the slot's new owner before trying again anyway. */
const MOVED_WAIT_MS = 2000;
/** How often a long-poll whose slot has no live primary looks for one. */
const REPARK_POLL_MS = 250;

export class Cluster {
  readonly placement: Placement;

  constructor(shards: readonly ShardAddress[] | Placement, observe?: LatencyObserver, tls: TlsMaterial | null = null) {
    this.placement = Array.isArray(shards) ? new StaticPlacement(shards, observe, tls) : (shards as Placement);
  }

  shardOf(key: string): ShardClient {
    return this.placement.route(key).client;
  }

  /**
   * Keys that one command may carry together: the same shard, or in an etcd cluster the same slot,
   * since a slot moves (and is fenced) on its own.
   */
  deliveryGroup(key: string): number | string {
    const route = this.placement.route(key);
    return route.epoch ? `slot ${route.slot}` : route.client.shardId;
  }

  call<T>(command: Command, options: CallOptions = {}): Promise<T> {
    const key = routeKey(command);
    if (key === null) throw new Error(`${command.type} goes to every shard; use broadcast()`);
    return this.send<T>(key, command, options, 1, Date.now());
  }

  private send<T>(key: string, command: Command, options: CallOptions, attempt: number, started: number): Promise<T> {
    let route;
    try {
      route = this.placement.route(key);
    } catch (err) {
      // No live primary right now (the slot's is gone, its follower not promoted yet).
      if (command.type === 'message.wait' && this.placement.fenced && err instanceof MailcueError && err.code === 'unavailable') return this.repark<T>(key, command, options, null, 0, started);
      return Promise.reject(err);
    }
    const { slot, epoch } = route;
    return route.client.call<T>(command, { ...options, slot, epoch }).catch(async (err: unknown) => {
      if (options.signal?.aborted || !(err instanceof MailcueError)) throw err;
      if (err.code === 'unavailable' && epoch > 0 && command.type === 'message.wait') return this.repark<T>(key, command, options, slot, epoch, started);
      if (err.code !== 'moved') throw err;
      if (attempt >= MOVED_ATTEMPTS) throw new MailcueError('unavailable', 'The inbox is moving between shards; retry in a second', { retry_after_s: 1 });
      await this.placement.changed(slot, epoch, MOVED_WAIT_MS);
      return this.send<T>(key, remaining(command, started), remainingOptions(options, started), attempt + 1, started);
    });
  }

  /**
   * A parked long-poll whose shard went away (DESIGN.md §8 "Failover"): it waits for the slot's
   * new primary, for as long as the poll had left, and parks there with the same `since`.
   */
  private async repark<T>(key: string, command: Command, options: CallOptions, slot: number | null, epoch: number, started: number): Promise<T> {
    const left = (command as Extract<Command, { type: 'message.wait' }>).timeoutMs - (Date.now() - started);
    if (left <= 0) throw new MailcueError('unavailable', 'The inbox\'s shard is failing over; retry in a second', { retry_after_s: 1 });
    if (slot === null) await new Promise((r) => setTimeout(r, Math.min(left, REPARK_POLL_MS)));
    else await this.placement.changed(slot, epoch, Math.min(left, MOVED_WAIT_MS));
    return this.send<T>(key, remaining(command, started), remainingOptions(options, started), 1, started);
  }

  broadcast<T>(command: Command, options?: CallOptions): Promise<T[]> {
    return Promise.all(this.placement.clients().map((c) => c.call<T>(command, options)));
  }

  async waitForReady(timeoutMs: number): Promise<void> {
    await Promise.all(this.placement.clients().map((c) => c.waitForReady(timeoutMs)));
  }

  async healthy(): Promise<boolean> {
    if (!this.placement.complete()) return false;
    const checks = await Promise.all(this.placement.clients().map((c) => c.check()));
    return checks.length > 0 && checks.every(Boolean);
  }

  /**
   * Graceful stop: every parked long-poll is answered (timed out) rather than cut, then this
   * resolves once their answers are back or `timeoutMs` passes.
   */
  async drainWaits(timeoutMs: number): Promise<void> {
    for (const c of this.placement.clients()) c.cancelWaits();
    const end = Date.now() + timeoutMs;
    while (Date.now() < end && this.placement.clients().some((c) => c.waitsInFlight > 0)) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  get shards(): ShardClient[] {
    return this.placement.clients();
  }

  close(): void {
    this.placement.close();
  }
}

/** A long-poll re-sent after `moved` waits only for the time it had left, with the same `since`. */
function remaining(command: Command, started: number): Command {
  if (command.type !== 'message.wait') return command;
  return { ...command, timeoutMs: Math.max(0, command.timeoutMs - (Date.now() - started)) };
}

function remainingOptions(options: CallOptions, started: number): CallOptions {
  if (options.timeoutMs === undefined) return options;
  return { ...options, timeoutMs: Math.max(1, options.timeoutMs - (Date.now() - started)) };
}
