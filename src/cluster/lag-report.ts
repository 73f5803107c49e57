// Each shard tells etcd, about once a second, how far behind its followers' copies are (the
// largest lag per follower, in oplog entries; -1 while a copy is being made), so that
// `mailcue admin cluster status` can show `max_lag` and `catching_up` without asking every shard.
import type { Namespace } from './etcd.js';

export const LAG_PREFIX = 'lag/';
const REPORT_INTERVAL_MS = 1000;

export class LagReport {
  private last = '';
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly ns: Namespace, private readonly self: string, read: () => Record<string, number>) {
    this.timer = setInterval(() => {
      const text = JSON.stringify(read());
      if (text === this.last) return;
      this.last = text;
      void this.ns.put(`${LAG_PREFIX}${self}`).value(text).catch(() => { this.last = ''; });
    }, REPORT_INTERVAL_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    void this.ns.delete().key(`${LAG_PREFIX}${this.self}`).catch(() => undefined);
  }
}

/** Per follower: the largest lag any live primary reports for it. */
export async function readLag(ns: Namespace, live: Set<string>): Promise<Map<string, number>> {
  const reports = await ns.getAll().prefix(LAG_PREFIX).strings();
  const out = new Map<string, number>();
  for (const [key, text] of Object.entries(reports)) {
    if (!live.has(key.slice(LAG_PREFIX.length))) continue;
    for (const [follower, lag] of Object.entries(JSON.parse(text) as Record<string, number>)) {
      const prev = out.get(follower);
      out.set(follower, prev === undefined ? lag : lag < 0 || prev < 0 ? -1 : Math.max(prev, lag));
    }
  }
  return out;
}
