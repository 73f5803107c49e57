// The cluster as the front tier sees it: a Placement of shard clients. A command goes to the shard
// that owns its route key, or to every shard when it has none (listings gathered across shards).
// Each command travels as a RoutedCall, which follows a slot that changed owner or failed over.
import type { Command } from '../contract/commands.js';
import { routeKey, type BroadcastType, type CommandOf, type ResultOf, type RoutedType } from '../contract/command-table.js';
import type { ShardAddress } from '../config/config.js';
import { MailcueError } from '../errors/registry.js';
import { StaticPlacement, type Placement } from './placement.js';
import type { CancelSignal } from '../util/cancel.js';
import { positionAt } from '../util/ids.js';
import { promised, type Sink } from '../util/sink.js';
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

  /** Sends a command to the shard that owns its key; its result type comes from the command table. */
  call<K extends RoutedType>(command: CommandOf<K>, options: CallOptions = {}): Promise<ResultOf<K>> {
    return promised<ResultOf<K>>((sink) => this.submit(command, options, sink));
  }

  /**
   * call() without a promise: the outcome goes to `sink`. A parked long-poll then holds only its
   * RoutedCall and its sink, not a chain of awaiting functions.
   */
  submit(command: CommandOf<RoutedType>, options: CallOptions, sink: Sink): void {
    const key = routeKey(command);
    if (key === null) throw new Error(`${command.type} goes to every shard; use broadcast()`);
    const call = new RoutedCall(this.placement, key, command, options.timeoutMs, options.signal, sink);
    options.signal?.addEventListener('abort', call);
    call.send();
  }

  /** Sends a command to every shard; answers each shard's result. */
  broadcast<K extends BroadcastType>(command: CommandOf<K>, options?: CallOptions): Promise<ResultOf<K>[]> {
    return Promise.all(this.placement.clients().map((c) => c.call(command, options)));
  }

  async waitForReady(timeoutMs: number): Promise<void> {
    await Promise.all(this.placement.clients().map((c) => c.waitForReady(timeoutMs)));
  }

  /** Whether every slot has an owner that answers its health check; if not, why (for /readyz). */
  async readiness(): Promise<{ ready: boolean; reason?: string }> {
    if (!this.placement.complete()) return { ready: false, reason: 'the slot map has not yet given every slot an owner, or is not current' };
    const clients = this.placement.clients();
    if (clients.length === 0) return { ready: false, reason: 'no shard is known' };
    const checks = await Promise.all(clients.map((c) => c.check()));
    const silent = clients.filter((_, i) => !checks[i]).map((c) => String(c.shardId));
    // In an etcd cluster a silent shard's slots fail over: the front stays ready while any shard answers.
    if (this.placement.fenced && silent.length < clients.length) return { ready: true };
    return silent.length === 0 ? { ready: true } : { ready: false, reason: `no answer to the health check from shard ${silent.join(', ')}` };
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

/**
 * One command on its way to the shard that owns its key. A `moved` answer (the slot changed owner)
 * sends it again to the new owner once the map shows it; a long-poll whose shard went away waits
 * for the slot's new primary and parks there with the same `since` and the time it has left.
 * It listens for its caller's abort itself (handleEvent), so that costs no closure.
 */
class RoutedCall implements Sink {
  private readonly started = Date.now();
  private attempt = 1;
  private sends = 0;
  /** The shard and request id of the attempt in flight; null between attempts. */
  private client: ShardClient | null = null;
  private id = 0;
  private slot = 0;
  private epoch = 0;

  constructor(
    private readonly placement: Placement,
    private readonly key: string,
    private readonly command: Command,
    private readonly timeoutMs: number | undefined,
    private readonly signal: CancelSignal | undefined,
    private readonly sink: Sink,
  ) {}

  send(): void {
    if (this.signal?.aborted) {
      this.sink.reject(new MailcueError('unavailable', 'Request cancelled'));
      return;
    }
    let route;
    try {
      route = this.placement.route(this.key);
    } catch (err) {
      // No live primary right now (the slot's is gone, its follower not promoted yet).
      if (this.command.type === 'message.wait' && this.placement.fenced && err instanceof MailcueError && err.code === 'unavailable') this.repark(null, 0);
      else this.sink.reject(err as Error);
      return;
    }
    this.slot = route.slot;
    this.epoch = route.epoch;
    this.client = route.client;
    const again = this.sends++ > 0;
    try {
      // Only a command sent again has spent part of its time.
      const command = again ? this.commandLeft() : this.command;
      const timeoutMs = again ? this.timeoutLeft() : this.timeoutMs;
      this.id = route.client.submit(command, { timeoutMs, slot: route.slot, epoch: route.epoch }, this);
    } catch (err) {
      // A command that cannot be packed: its caller hears it, whether this is the first send or not.
      this.client = null;
      this.sink.reject(err as Error);
    }
  }

  resolve(value: unknown): void {
    this.client = null;
    this.sink.resolve(value);
  }

  reject(err: Error): void {
    this.client = null;
    if (this.signal?.aborted || !(err instanceof MailcueError)) return this.sink.reject(err);
    // A parked long-poll whose slot failed over or moved is parked again on the new primary, however
    // often that takes, until its own time is up: the client sees a delay, never an error.
    if ((err.code === 'unavailable' || err.code === 'moved') && this.epoch > 0 && this.command.type === 'message.wait') return this.repark(this.slot, this.epoch);
    if (err.code !== 'moved') return this.sink.reject(err);
    if (this.attempt >= MOVED_ATTEMPTS) return this.sink.reject(new MailcueError('unavailable', 'The inbox is moving between shards; retry in a second', { retry_after_s: 1 }));
    this.attempt++;
    this.after(this.placement.changed(this.slot, this.epoch, MOVED_WAIT_MS));
  }

  /** The caller hung up: the shard is told to drop the request, and answers it. */
  handleEvent(): void {
    this.client?.cancel(this.id);
  }

  private repark(slot: number | null, epoch: number): void {
    const left = this.waitLeft();
    // Its time ran out while no primary answered: the ordinary answer of a long-poll that saw nothing.
    if (left <= 0) return this.sink.resolve({ timed_out: true, message: null, cursor: this.since() });
    this.attempt = 1;
    this.after(slot === null ? new Promise<void>((r) => setTimeout(r, Math.min(left, REPARK_POLL_MS))) : this.placement.changed(slot, epoch, Math.min(left, MOVED_WAIT_MS)));
  }

  private after(ready: Promise<unknown>): void {
    ready.then(() => this.send(), (err: Error) => this.sink.reject(err));
  }

  private elapsed(): number {
    return Date.now() - this.started;
  }

  private waitLeft(): number {
    return (this.command as Extract<Command, { type: 'message.wait' }>).timeoutMs - this.elapsed();
  }

  /**
   * Where the long-poll waits from: its `since`, or, when it had none ("now"), a cursor below every
   * message made since it was first sent. Sent again after a failover or a move, it then sees the
   * mail that arrived meanwhile: a new primary's "now" would be after it (issue 34).
   */
  private since(): string {
    return (this.command as Extract<Command, { type: 'message.wait' }>).since ?? positionAt(this.started);
  }

  /** A long-poll sent again waits only for the time it has left, from where it first waited. */
  private commandLeft(): Command {
    if (this.command.type !== 'message.wait') return this.command;
    return { ...this.command, since: this.since(), timeoutMs: Math.max(0, this.waitLeft()) };
  }

  private timeoutLeft(): number | undefined {
    if (this.timeoutMs === undefined) return undefined;
    return Math.max(1, this.timeoutMs - this.elapsed());
  }
}
