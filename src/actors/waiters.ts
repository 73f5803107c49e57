// Parked long-polls, indexed by inbox. A waiter lives here until a delivery on this shard wakes it,
// its deadline passes, or its caller cancels; each path removes it, so the count returns to zero.
import type { MessageRecord } from './model.js';

export interface Waiter {
  match: 'any' | 'code';
  wake(message: MessageRecord): void;
  timeout(): void;
  fail(err: Error): void;
  timer: NodeJS.Timeout | undefined;
}

export class WaiterRegistry {
  private readonly byInbox = new Map<string, Set<Waiter>>();
  private parked = 0;

  get size(): number {
    return this.parked;
  }

  park(address: string, waiter: Waiter, timeoutMs: number): () => boolean {
    let set = this.byInbox.get(address);
    if (!set) {
      set = new Set();
      this.byInbox.set(address, set);
    }
    set.add(waiter);
    this.parked++;
    const remove = () => this.remove(address, waiter);
    waiter.timer = setTimeout(() => {
      if (remove()) waiter.timeout();
    }, timeoutMs);
    return remove;
  }

  /** Removes the waiter; true if it was still parked (so exactly one outcome is delivered). */
  remove(address: string, waiter: Waiter): boolean {
    const set = this.byInbox.get(address);
    if (!set || !set.delete(waiter)) return false;
    if (set.size === 0) this.byInbox.delete(address);
    this.parked--;
    if (waiter.timer) clearTimeout(waiter.timer);
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

  /** Shutdown: answers every parked waiter as timed out. */
  drain(): void {
    for (const [address, set] of [...this.byInbox]) {
      for (const waiter of [...set]) if (this.remove(address, waiter)) waiter.timeout();
    }
  }
}
