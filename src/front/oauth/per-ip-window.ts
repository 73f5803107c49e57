// A per-client-IP count in fixed windows aligned to the UTC minute, on one front (DESIGN §7:
// /authorize is limited per client IP as well as against the key it names). The map is emptied
// every minute and bounded: once full, unseen addresses share one overflow count.

const MAX_ADDRESSES = 50_000;
const OVERFLOW = '';

export class PerIpWindow {
  private minute = -1;
  private readonly counts = new Map<string, number>();

  constructor(private readonly perMinute: number, private readonly now: () => number = Date.now) {}

  /** Counts one call; answers the seconds to wait when it is over the limit, else 0. */
  take(ip: string): number {
    const now = this.now();
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.counts.clear();
    }
    const key = this.counts.has(ip) || this.counts.size < MAX_ADDRESSES ? ip : OVERFLOW;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n > this.perMinute ? Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000)) : 0;
  }
}
