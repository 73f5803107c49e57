// Parked long-polls, indexed by inbox. A waiter lives here until a delivery on this shard wakes it,
// its deadline passes, or its caller cancels; each path removes it, so the count returns to zero.
// Deadlines sit on one coarse timer wheel rather than a timer each: tens of thousands of parked
// waiters then cost one interval, and a timeout answers at most TICK_MS late.
import type { MessageRecord } from './model.js';

export interface Waiter {
  match: 'any' | 'code';
  deadline: number;
  wake(message: MessageRecord): void;
  timeout(): void;
  fail(err: Error): void;
}

const TICK_MS = 100;

export class WaiterRegistry {
  private readonly byInbox = new Map<string, Set<Waiter>>();
  /** tick number → waiters whose deadline falls in it. */
  private readonly wheel = new Map<number, Map<Waiter, string>>();
  private readonly ticker: NodeJS.Timeout;
  private lastTick: number;
  private parked = 0;

  constructor(private readonly now: () => number = Date.now) {
    this.lastTick = Math.floor(this.now() / TICK_MS);
    this.ticker = setInterval(() => this.expire(), TICK_MS);
    this.ticker.unref();
  }

  get size(): number {
    return this.parked;
  }

  /** Parks the waiter; the returned function removes it (true if it was still parked). */
  park(address: string, waiter: Waiter): () => boolean {
    let set = this.byInbox.get(address);
    if (!set) {
      set = new Set();
      this.byInbox.set(address, set);
    }
    set.add(waiter);
    this.parked++;
    const tick = Math.ceil(waiter.deadline / TICK_MS);
    let slot = this.wheel.get(tick);
    if (!slot) this.wheel.set(tick, (slot = new Map()));
    slot.set(waiter, address);
    return () => this.remove(address, waiter);
  }

  /** Removes the waiter; true if it was still parked (so exactly one outcome is delivered). */
  remove(address: string, waiter: Waiter): boolean {
    const set = this.byInbox.get(address);
    if (!set || !set.delete(waiter)) return false;
    if (set.size === 0) this.byInbox.delete(address);
    this.parked--;
    this.wheel.get(Math.ceil(waiter.deadline / TICK_MS))?.delete(waiter);
    return true;
  }

  /** Wakes every waiter of the inbox that the message satisfies. */
  deliver(address: string, message: MessageRecord): void {
    const set = this.byInbox.get(address);
    if (!set) return;
    const hasCode = message.otp !== null || message.verification_link !== null;
    for (const waiter of [...set]) {
      if (waiter.match === 'code' && !hasCode) continue;
      if (this.remove(address, waiter)) waiter.wake(message);
    }
  }

  /** Fails every waiter of an inbox that no longer exists. */
  failAll(address: string, err: Error): void {
    const set = this.byInbox.get(address);
    if (!set) return;
    for (const waiter of [...set]) if (this.remove(address, waiter)) waiter.fail(err);
  }

  private expire(): void {
    const current = Math.floor(this.now() / TICK_MS);
    for (let tick = this.lastTick; tick <= current; tick++) {
      const slot = this.wheel.get(tick);
      if (!slot) continue;
      this.wheel.delete(tick);
      for (const [waiter, address] of slot) if (this.remove(address, waiter)) waiter.timeout();
    }
    this.lastTick = current;
  }

  /** Shutdown: answers every parked waiter as timed out. */
  drain(): void {
    clearInterval(this.ticker);
    for (const [address, set] of [...this.byInbox]) {
      for (const waiter of [...set]) if (this.remove(address, waiter)) waiter.timeout();
    }
  }
}
