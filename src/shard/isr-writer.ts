// The primary's changes to its slots' in-sync sets (DESIGN.md §8 "In-sync set"): a follower that
// stopped answering leaves the set, a caught-up one joins it, each by a slot-map transaction that
// applies only while this shard is still the slot's primary at the epoch the change was asked at.
// Changes asked while a transaction is in flight go together in the next one (a fresh cluster's
// 2,048 joins are a handful of transactions, not 2,048).
import type { SlotMap } from '../cluster/slot-map.js';
import { sortIsr } from '../cluster/slot-map.js';
import type { SlotMapStore } from '../cluster/slot-map-store.js';
import { MailcueError } from '../errors/registry.js';

/** A change not committed by then is answered `unavailable` (etcd unreachable): the write is not acknowledged. */
const TXN_TIMEOUT_MS = 5000;

interface Change {
  readonly slot: number;
  readonly epoch: number;
  readonly member: string;
  readonly add: boolean;
  resolve(): void;
  reject(err: Error): void;
}

export class IsrWriter {
  private queue: Change[] = [];
  private running = false;
  private closed = false;

  constructor(private readonly store: SlotMapStore, private readonly self: string, private readonly log?: { warn(o: object, m: string): void }) {}

  /** `member` leaves the slot's in-sync set (it is no longer waited for once this resolves). */
  shrink(slot: number, epoch: number, member: string): Promise<void> {
    return this.ask(slot, epoch, member, false);
  }

  /** `member` joins the slot's in-sync set (its copy holds every entry logged before it was asked). */
  expand(slot: number, epoch: number, member: string): Promise<void> {
    return this.ask(slot, epoch, member, true);
  }

  private ask(slot: number, epoch: number, member: string, add: boolean): Promise<void> {
    if (this.closed) return Promise.reject(new MailcueError('unavailable', 'The shard is stopping', { retry_after_s: 1 }));
    return new Promise((resolve, reject) => {
      this.queue.push({ slot, epoch, member, add, resolve, reject });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0 && !this.closed) {
      const batch = this.queue;
      this.queue = [];
      let refused = new Set<Change>();
      try {
        await withTimeout(this.store.update((map) => {
          refused = new Set();
          return this.apply(map, batch, refused);
        }), TXN_TIMEOUT_MS);
        for (const c of batch) {
          if (refused.has(c)) c.reject(new MailcueError('moved', `Slot ${c.slot} is no longer this shard's at epoch ${c.epoch}`, { slot: c.slot, retry_after_s: 1 }));
          else c.resolve();
        }
      } catch (err) {
        this.log?.warn({ err: String(err), changes: batch.length }, 'in-sync set change failed');
        const e = new MailcueError('unavailable', `The in-sync set could not be changed: ${(err as Error).message}`, { retry_after_s: 1 });
        for (const c of batch) c.reject(e);
      }
    }
    this.running = false;
  }

  /** The next map with every change that still applies; null when none changes anything. */
  private apply(map: SlotMap, batch: readonly Change[], refused: Set<Change>): SlotMap | null {
    let next: SlotEntryList | null = null;
    for (const c of batch) {
      const e = (next ?? map)[c.slot]!;
      if (e.primary !== this.self || e.epoch !== c.epoch || (c.add && !e.followers.includes(c.member))) {
        refused.add(c);
        continue;
      }
      const has = e.isr.includes(c.member);
      if (has === c.add) continue;
      const isr = c.add ? [...e.isr, c.member] : e.isr.filter((m) => m !== c.member);
      next ??= map.slice();
      next[c.slot] = { ...e, isr: sortIsr(e.primary, isr) };
    }
    return next;
  }

  close(): void {
    this.closed = true;
    const e = new MailcueError('unavailable', 'The shard is stopping', { retry_after_s: 1 });
    for (const c of this.queue.splice(0)) c.reject(e);
  }
}

type SlotEntryList = SlotMap extends readonly (infer E)[] ? E[] : never;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer from etcd in ${ms} ms`)), ms);
    p.then((v) => { clearTimeout(timer); resolve(v); }, (err: Error) => { clearTimeout(timer); reject(err); });
  });
}
