// Progress of a parked wait (issue 36): a tools/call that carries `_meta.progressToken` gets
// `notifications/progress` at least every 10 s until it answers, with the seconds elapsed as
// `progress` and what it waits for as `message`, so that hosts whose idle watchdog counts
// progress (Claude Code, Google ADK) keep the call alive. One timer visits every parked wait.

/** The bound a client may rely on: never more than this between two progress notifications. */
export const PROGRESS_BOUND_MS = 10_000;
/** How often a wait reports by default (MAILCUE_MCP_PROGRESS_MS); the visit granularity keeps it within the bound. */
export const PROGRESS_DEFAULT_MS = 5_000;
/** The largest configurable interval: with one visit's lateness it still stays within the bound. */
export const PROGRESS_MAX_MS = 9_000;
/** How often the waits are visited. */
export const PROGRESS_TICK_MS = 250;

export interface ProgressEntry {
  readonly startedAt: number;
  readonly intervalMs: number;
  nextAt: number;
  /** The last value sent: progress MUST increase (MCP "Progress"). */
  last: number;
  emit(progress: number): void;
}

/** Seconds since the start, to a tenth, and always above the last value sent. */
export function nextProgress(entry: Pick<ProgressEntry, 'startedAt' | 'last'>, now: number): number {
  const elapsed = Math.round((now - entry.startedAt) / 100) / 10;
  return elapsed > entry.last ? elapsed : Math.round((entry.last + 0.1) * 10) / 10;
}

export class ProgressTicker {
  private readonly entries = new Set<ProgressEntry>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly now: () => number = Date.now, private readonly tickMs = PROGRESS_TICK_MS, private readonly timers = true) {}

  /** Starts reporting; the returned function stops it (the wait answered or was cancelled). */
  add(intervalMs: number, emit: (progress: number) => void, startedAt = this.now(), last = -1): () => void {
    const entry: ProgressEntry = { startedAt, intervalMs, nextAt: this.now() + intervalMs, last, emit };
    this.entries.add(entry);
    if (this.timers) this.timer ??= setInterval(() => this.tick(), this.tickMs);
    return () => this.remove(entry);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Visits every wait: each one due reports now and is due again an interval later. */
  tick(now = this.now()): void {
    for (const entry of this.entries) {
      if (now < entry.nextAt) continue;
      entry.nextAt = now + entry.intervalMs;
      entry.last = nextProgress(entry, now);
      try {
        entry.emit(entry.last);
      } catch {
        // A stream that cannot take it any more is closed by its owner; the others go on.
      }
    }
  }

  private remove(entry: ProgressEntry): void {
    this.entries.delete(entry);
    if (this.entries.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}

/** The process's one ticker for parked waits. */
export const waitProgress = new ProgressTicker();
