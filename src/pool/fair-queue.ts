// Fair admission to a shared worker (issue 33, DESIGN §7 "Shared workers are fair"): each key (an
// account) has its own FIFO, and a free slot goes to the keys in turn, so one account's backlog
// waits behind its own work, not in front of everyone's. At most `limit` tasks run at once; the
// rest wait here, not in the worker's own queue, so a task's time bound starts when it runs.

type Start = () => void;

export class FairQueue {
  /** Keys with waiting work, in turn order (a Map keeps insertion order; a served key goes last). */
  private readonly queues = new Map<string, Start[]>();
  /** Running tasks by key, for the per-key cap. */
  private readonly runningBy = new Map<string, number>();
  private running = 0;

  /** `perKey`: at most this many of one key's tasks run at once (default: all slots). */
  constructor(private readonly limit: number, private readonly perKey = limit) {}

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        this.runningBy.set(key, (this.runningBy.get(key) ?? 0) + 1);
        let settled: Promise<T>;
        try {
          settled = task();
        } catch (err) {
          settled = Promise.reject(err);
        }
        settled.then(resolve, reject).finally(() => {
          this.running--;
          const n = this.runningBy.get(key)! - 1;
          if (n === 0) this.runningBy.delete(key);
          else this.runningBy.set(key, n);
          this.next();
        });
      };
      if (this.running < this.limit && !this.queues.has(key) && (this.runningBy.get(key) ?? 0) < this.perKey) return start();
      const queue = this.queues.get(key);
      if (queue) queue.push(start);
      else this.queues.set(key, [start]);
    });
  }

  /** Fills free slots, one task per key in turn, skipping keys at their own cap. */
  private next(): void {
    let passed = 0;
    while (this.running < this.limit && passed < this.queues.size) {
      const [key, queue] = this.queues.entries().next().value as [string, Start[]];
      this.queues.delete(key);
      if ((this.runningBy.get(key) ?? 0) >= this.perKey) {
        this.queues.set(key, queue);
        passed++;
        continue;
      }
      passed = 0;
      const start = queue.shift()!;
      if (queue.length > 0) this.queues.set(key, queue);
      start();
    }
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  get active(): number {
    return this.running;
  }

  /** Tasks of one key waiting for a slot. */
  waitingOf(key: string): number {
    return this.queues.get(key)?.length ?? 0;
  }
}
