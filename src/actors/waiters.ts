// Parked long-polls, indexed by inbox. A waiter lives here until a delivery on this shard wakes it,
// its deadline passes, or its caller cancels; each path removes it, so the count returns to zero.
// Deadlines sit on one coarse timer wheel rather than a timer each: tens of thousands of parked
// waiters then cost one interval, and a timeout answers at most TICK_MS late.
import { answersAuthWait } from '../contract/authentication.js';
import type { WaitMatch } from '../contract/commands.js';
import type { MessageRecord } from '../contract/model.js';

/** Whether a message is one the wait's match asks for. */
export function answersMatch(match: WaitMatch, message: Pick<MessageRecord, 'otp' | 'verification_link'>): boolean {
  switch (match) {
    case 'any':
      return true;
    case 'otp':
      return message.otp !== null;
    case 'link':
      return message.verification_link !== null;
    default:
      return message.otp !== null || message.verification_link !== null;
  }
}

/** What ends a wait: the message that answers it, a timeout, or an error. */
export type WaitOutcome = MessageRecord | 'timeout' | Error;

export interface Waiter {
  readonly address: string;
  readonly match: WaitMatch;
  /** Only a message newer than this id answers (null: any message delivered after parking). */
  readonly since: string | null;
  readonly deadline: number;
  /** The inbox requires sender authentication: mail that fails it, or is still being checked, does not answer. */
  readonly requireAuth?: boolean;
  settle(outcome: WaitOutcome): void;
}

const TICK_MS = 100;

export class WaiterRegistry {
  private readonly byInbox = new Map<string, Set<Waiter>>();
  /** tick number → waiters whose deadline falls in it. */
  private readonly wheel = new Map<number, Set<Waiter>>();
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

  park(waiter: Waiter): void {
    let set = this.byInbox.get(waiter.address);
    if (!set) {
      set = new Set();
      this.byInbox.set(waiter.address, set);
    }
    set.add(waiter);
    this.parked++;
    const tick = Math.ceil(waiter.deadline / TICK_MS);
    let slot = this.wheel.get(tick);
    if (!slot) this.wheel.set(tick, (slot = new Set()));
    slot.add(waiter);
  }

  /** Removes the waiter; true if it was still parked (so exactly one outcome is delivered). */
  remove(waiter: Waiter): boolean {
    const address = waiter.address;
    const set = this.byInbox.get(address);
    if (!set || !set.delete(waiter)) return false;
    if (set.size === 0) this.byInbox.delete(address);
    this.parked--;
    this.wheel.get(Math.ceil(waiter.deadline / TICK_MS))?.delete(waiter);
    return true;
  }

  /**
   * Wakes every waiter of the inbox that the message satisfies. A message is visible to readers
   * once its transaction commits, a little before this runs: a waiter parked in between with
   * `since` = this very message (its caller already read it) must not be answered with it.
   * `authSettled`: the message was delivered earlier with its check still running, and only now
   * may answer require-auth waiters.
   */
  deliver(address: string, message: MessageRecord, authSettled = false): void {
    const set = this.byInbox.get(address);
    if (!set) return;
    const trusted = answersAuthWait(message.authentication);
    for (const waiter of [...set]) {
      if (!answersMatch(waiter.match, message)) continue;
      if (waiter.requireAuth ? !trusted : authSettled) continue;
      if (waiter.since !== null && message.id <= waiter.since) continue;
      if (this.remove(waiter)) waiter.settle(message);
    }
  }

  /** Fails every waiter of an inbox that no longer exists. */
  failAll(address: string, err: Error): void {
    const set = this.byInbox.get(address);
    if (!set) return;
    for (const waiter of [...set]) if (this.remove(waiter)) waiter.settle(err);
  }

  /** Fails the waiters of every inbox `which` picks (their slot moved to another shard). */
  failWhere(which: (address: string) => boolean, err: Error): void {
    for (const address of [...this.byInbox.keys()]) if (which(address)) this.failAll(address, err);
  }

  private expire(): void {
    const current = Math.floor(this.now() / TICK_MS);
    for (let tick = this.lastTick; tick <= current; tick++) {
      const slot = this.wheel.get(tick);
      if (!slot) continue;
      this.wheel.delete(tick);
      for (const waiter of slot) if (this.remove(waiter)) waiter.settle('timeout');
    }
    this.lastTick = current;
  }

  /** Shutdown: answers every parked waiter as timed out. */
  drain(): void {
    clearInterval(this.ticker);
    for (const set of [...this.byInbox.values()]) {
      for (const waiter of [...set]) if (this.remove(waiter)) waiter.settle('timeout');
    }
  }
}
