// Fencing on a cluster shard (DESIGN.md §8): a command runs only if this shard is the slot's
// primary at exactly the epoch the sender routed by; otherwise it answers `moved` and the front
// re-sends. During the epoch switch of a move the slot is frozen: commands wait (≤ 100 ms by
// design) and are then judged against the new map.
import { MailcueError } from '../errors/registry.js';
import type { SlotMap } from './slot-map.js';
import type { SlotView } from './slot-view.js';

/** How long a command that names a newer epoch than ours waits for our watch to catch up. */
const CATCH_UP_MS = 2000;

/** null: run it; an error: answer it; a promise: ask again once it settles. */
export type Admission = null | MailcueError | Promise<void>;

export class SlotGuard {
  private readonly frozen = new Map<number, { promise: Promise<void>; release(): void }>();
  private readonly lostListeners: ((slots: Set<number>) => void)[] = [];

  constructor(private readonly view: SlotView, readonly self: string) {
    view.listeners.push((previous) => this.compare(previous));
  }

  admit(slot: number, epoch: number): Admission {
    const frozen = this.frozen.get(slot);
    if (frozen) return frozen.promise;
    const entry = this.view.entry(slot);
    if (entry.primary === this.self && entry.epoch === epoch) return null;
    if (epoch > entry.epoch) return this.view.epochAfter(slot, entry.epoch, CATCH_UP_MS);
    return new MailcueError('moved', `Slot ${slot} is served by ${entry.primary ?? 'no shard'} at epoch ${entry.epoch}`, { slot, epoch: entry.epoch, retry_after_s: 1 });
  }

  /** Holds every command of the slot until release(): the last oplog entries move meanwhile. */
  freeze(slot: number): void {
    if (this.frozen.has(slot)) return;
    let release!: () => void;
    const promise = new Promise<void>((r) => (release = r));
    this.frozen.set(slot, { promise, release });
  }

  release(slot: number): void {
    const f = this.frozen.get(slot);
    if (!f) return;
    this.frozen.delete(slot);
    f.release();
  }

  /** Slots whose primary was this shard and no longer is: their parked waiters must go. */
  onLost(listener: (slots: Set<number>) => void): void {
    this.lostListeners.push(listener);
  }

  owns(slot: number): boolean {
    return this.view.entry(slot).primary === this.self;
  }

  private compare(previous: SlotMap): void {
    const lost = new Set<number>();
    for (const e of this.view.map) if (previous[e.slot]!.primary === this.self && e.primary !== this.self) lost.add(e.slot);
    if (lost.size > 0) for (const l of this.lostListeners) l(lost);
  }
}
