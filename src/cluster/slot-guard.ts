// Fencing on a cluster shard (DESIGN.md §8): a command runs only if this shard is the slot's
// primary at exactly the epoch the sender routed by, is in the slot's in-sync set, and its own etcd
// lease is surely alive; otherwise it answers `moved` (the front re-sends) or `unavailable`. A
// slot this process found itself primary of when its session began (a restart, a lease granted
// again) is not served until the controller has moved it on to a higher epoch. During the epoch
// switch of a move the slot is frozen: commands wait (≤ 100 ms by design, never past the freeze's
// deadline) and are then judged against the new map.
import { MailcueError } from '../errors/registry.js';
import type { SlotMap } from './slot-map.js';
import type { SlotView } from './slot-view.js';

/** How long a command that names a newer epoch than ours waits for our watch to catch up. */
const CATCH_UP_MS = 2000;
/** A freeze no release ends (its controller died mid-move) lifts itself after this. */
export const FREEZE_DEADLINE_MS = 10_000;

/** null: run it; an error: answer it; a promise: ask again once it settles. */
export type Admission = null | MailcueError | Promise<void>;

/** Is the shard's etcd lease surely alive (its last keep-alive younger than the TTL minus a margin)? */
export interface LeaseClock {
  fresh(): boolean;
}

export class SlotGuard {
  private readonly frozen = new Map<number, { promise: Promise<void>; release(): void; timer: NodeJS.Timeout }>();
  private readonly lostListeners: ((slots: Set<number>) => void)[] = [];
  /** slot -> the epoch it had, naming this shard primary, when this session began: not served at it. */
  private readonly sessionFence = new Map<number, number>();
  lease: LeaseClock = { fresh: () => true };

  constructor(private readonly view: SlotView, readonly self: string, private readonly minInsync: () => number = () => 1) {
    view.listeners.push((previous) => this.compare(previous));
    this.newSession();
  }

  /** A new session (start, or a lease granted again): what the map names us primary of waits for a new epoch. */
  newSession(): void {
    this.sessionFence.clear();
    for (const e of this.view.map) if (e.primary === this.self) this.sessionFence.set(e.slot, e.epoch);
  }

  /**
   * The controller has recorded this session (it has acted on the restart): what the map names this
   * shard primary of from now on was judged with the restart known, so the fence lifts.
   */
  sessionRecorded(): void {
    this.sessionFence.clear();
  }

  /** Primary of the slot at an epoch given to this session. */
  mayServe(slot: number): boolean {
    const e = this.view.entry(slot);
    if (e.primary !== this.self) return false;
    const fence = this.sessionFence.get(slot);
    return fence === undefined || e.epoch > fence;
  }

  admit(slot: number, epoch: number): Admission {
    const frozen = this.frozen.get(slot);
    if (frozen) return frozen.promise;
    const entry = this.view.entry(slot);
    if (entry.primary === this.self && entry.epoch === epoch) return this.serving(slot);
    if (epoch > entry.epoch) return this.view.epochAfter(slot, entry.epoch, CATCH_UP_MS);
    return new MailcueError('moved', `Slot ${slot} is served by ${entry.primary ?? 'no shard'} at epoch ${entry.epoch}`, { slot, epoch: entry.epoch, retry_after_s: 1 });
  }

  /**
   * After the command ran and its writes passed the barrier: still the primary at the epoch, the
   * lease still alive, and (when it wrote) the in-sync set at its minimum. Otherwise the write is
   * not acknowledged.
   */
  confirm(slot: number, epoch: number, wrote: boolean): MailcueError | null {
    const entry = this.view.entry(slot);
    if (entry.primary !== this.self || entry.epoch !== epoch) {
      return new MailcueError('moved', `Slot ${slot} changed owner before the write was acknowledged`, { slot, epoch: entry.epoch, retry_after_s: 1 });
    }
    const refusal = this.serving(slot);
    if (refusal) return refusal;
    if (wrote && entry.isr.length < this.minInsync()) {
      return new MailcueError('unavailable', `Slot ${slot} has ${entry.isr.length} in-sync copies, fewer than the minimum ${this.minInsync()}`, { slot, retry_after_s: 1 });
    }
    return null;
  }

  /** Before a write: refused while the slot's in-sync set is below its minimum. */
  writable(slot: number): MailcueError | null {
    const entry = this.view.entry(slot);
    if (entry.isr.length >= this.minInsync()) return null;
    return new MailcueError('unavailable', `Slot ${slot} has ${entry.isr.length} in-sync copies, fewer than the minimum ${this.minInsync()}`, { slot, retry_after_s: 1 });
  }

  /**
   * Whether this shard sends the slot's notifications now: it serves the slot as a write would be
   * served (primary, lease alive, in sync) and the slot has its minimum in-sync copies.
   */
  mayNotify(slot: number): boolean {
    return this.serving(slot) === null && this.writable(slot) === null;
  }

  private serving(slot: number): MailcueError | null {
    if (!this.lease.fresh()) return new MailcueError('unavailable', 'This shard has not heard from etcd within its lease; it admits no writes', { slot, retry_after_s: 1 });
    if (!this.mayServe(slot)) return new MailcueError('unavailable', `Slot ${slot} is failing over`, { slot, retry_after_s: 1 });
    if (!this.view.entry(slot).isr.includes(this.self)) return new MailcueError('unavailable', `Slot ${slot}: this copy is not in sync`, { slot, retry_after_s: 1 });
    return null;
  }

  /** Holds every command of the slot until release() or the deadline: the last oplog entries move meanwhile. */
  freeze(slot: number, deadlineMs = FREEZE_DEADLINE_MS): void {
    if (this.frozen.has(slot)) return;
    let release!: () => void;
    const promise = new Promise<void>((r) => (release = r));
    const timer = setTimeout(() => this.release(slot), deadlineMs);
    timer.unref();
    this.frozen.set(slot, { promise, release, timer });
  }

  release(slot: number): void {
    const f = this.frozen.get(slot);
    if (!f) return;
    this.frozen.delete(slot);
    clearTimeout(f.timer);
    f.release();
  }

  /** Slots whose primary was this shard and no longer is: their parked waiters must go. */
  onLost(listener: (slots: Set<number>) => void): void {
    this.lostListeners.push(listener);
  }

  owns(slot: number): boolean {
    return this.mayServe(slot);
  }

  private compare(previous: SlotMap): void {
    const lost = new Set<number>();
    for (const e of this.view.map) if (previous[e.slot]!.primary === this.self && e.primary !== this.self) lost.add(e.slot);
    if (lost.size > 0) for (const l of this.lostListeners) l(lost);
  }
}
