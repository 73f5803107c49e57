// What changed on this shard for each account (an inbox got mail or was read, created or removed; a
// domain or webhook was added, verified or removed), so the dashboard's event stream (GET /v1/events)
// wakes the moment something changes instead of polling. Changes sit in a bounded ring by sequence
// number: a watcher that returns with the last sequence it saw gets everything since, or `reset`
// when the ring no longer reaches back that far (or the shard restarted: a new epoch).
import { randomBytes } from 'node:crypto';
import type { Change, ChangesAnswer } from '../contract/results.js';
import type { CancelSignal } from '../util/cancel.js';

export type ChangeKind = Change['kind'];

const RING_SIZE = 4096;

interface Entry {
  seq: number;
  accountId: string;
  change: Change;
}

interface Watcher {
  readonly since: number;
  readonly timer: NodeJS.Timeout;
  settle(answer: ChangesAnswer): void;
}

export class AccountFeed {
  readonly epoch = randomBytes(8).toString('hex');
  private seq = 0;
  private readonly ring: (Entry | undefined)[] = new Array(RING_SIZE);
  private readonly watchers = new Map<string, Set<Watcher>>();
  private parked = 0;

  get size(): number {
    return this.parked;
  }

  note(accountId: string, change: Change): void {
    const seq = ++this.seq;
    this.ring[seq % RING_SIZE] = { seq, accountId, change };
    const set = this.watchers.get(accountId);
    if (!set) return;
    for (const w of [...set]) if (this.remove(accountId, w)) w.settle(this.since(accountId, w.since));
  }

  /**
   * Changes of the account after `since` in this epoch; parks until one happens or `timeoutMs`
   * passes (then an empty answer). Without a cursor it answers at once with the current one.
   */
  watch(accountId: string, since: number | null, epoch: string | null, timeoutMs: number, signal: CancelSignal): ChangesAnswer | Promise<ChangesAnswer> {
    if (since === null) return { epoch: this.epoch, seq: this.seq, reset: false, changes: [] };
    if (epoch !== this.epoch || since > this.seq) return { epoch: this.epoch, seq: this.seq, reset: true, changes: [] };
    const now = this.since(accountId, since);
    if (now.reset || now.changes.length > 0 || timeoutMs <= 0 || signal.aborted) return now;
    return new Promise<ChangesAnswer>((resolve) => {
      const watcher: Watcher = {
        since,
        timer: setTimeout(() => {
          if (this.remove(accountId, watcher)) resolve(this.since(accountId, since));
        }, timeoutMs),
        settle: resolve,
      };
      let set = this.watchers.get(accountId);
      if (!set) this.watchers.set(accountId, (set = new Set()));
      set.add(watcher);
      this.parked++;
      signal.addEventListener('abort', () => {
        if (this.remove(accountId, watcher)) resolve(this.since(accountId, since));
      });
    });
  }

  private remove(accountId: string, w: Watcher): boolean {
    const set = this.watchers.get(accountId);
    if (!set || !set.delete(w)) return false;
    if (set.size === 0) this.watchers.delete(accountId);
    clearTimeout(w.timer);
    this.parked--;
    return true;
  }

  private since(accountId: string, since: number): ChangesAnswer {
    const answer: ChangesAnswer = { epoch: this.epoch, seq: this.seq, reset: false, changes: [] };
    if (this.seq - since > RING_SIZE) {
      answer.reset = true;
      return answer;
    }
    const seen = new Set<string>();
    for (let s = since + 1; s <= this.seq; s++) {
      const entry = this.ring[s % RING_SIZE];
      if (!entry || entry.seq !== s || entry.accountId !== accountId) continue;
      const key = `${entry.change.kind} ${entry.change.inbox ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      answer.changes.push(entry.change);
    }
    return answer;
  }

  /** Shutdown: answers every watcher with what it has (nothing), so streams end cleanly. */
  drain(): void {
    for (const [accountId, set] of [...this.watchers]) {
      for (const w of [...set]) if (this.remove(accountId, w)) w.settle(this.since(accountId, w.since));
    }
  }
}
