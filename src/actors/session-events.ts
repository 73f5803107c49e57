// The agent-tool sessions' resumable streams (MCP 2025-11-25, "Resumability and Redelivery"),
// kept by the shard of the session's account so that a client whose stream broke can reconnect
// through any front with `Last-Event-ID` and get what it missed, above all the answer of a wait
// that settled while it was away (issue 36). In memory, small and bounded: per session a few
// streams of a few events each, kept EVENT_TTL_MS after their last event, then dropped.
import type { CancelSignal } from '../util/cancel.js';
import type { StreamEvent, StreamEvents } from '../contract/results.js';

/** How long a stream's events stay after its last one: at least the connection cap (60 s). */
export const EVENT_TTL_MS = 120_000;
/** Streams kept per session: the oldest goes first. */
export const MAX_STREAMS_PER_SESSION = 16;
/** Events kept per stream: the oldest go first (a final answer is the last event of its stream). */
export const MAX_EVENTS_PER_STREAM = 16;
/** Bytes of event data kept per session: a bigger answer evicts older streams. */
export const MAX_BYTES_PER_SESSION = 1024 * 1024;
const SWEEP_MS = 10_000;

interface StreamLog {
  readonly events: StreamEvent[];
  done: boolean;
  bytes: number;
  expiresAt: number;
  readonly watchers: Set<(log: StreamLog) => void>;
}

interface SessionLogs {
  readonly streams: Map<string, StreamLog>;
  bytes: number;
}

export class SessionEvents {
  /** `<account> <session>` → its streams, in the order they were first written. */
  private readonly sessions = new Map<string, SessionLogs>();
  private readonly sweeper: NodeJS.Timeout;
  private watching = 0;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Parked reconnections (counted with the shard's parked waiters). */
  get size(): number {
    return this.watching;
  }

  /** Adds events to a stream (events already held, by seq, are not added twice); `done`: its answer is among them. */
  put(accountId: string, sessionId: string, streamId: string, events: StreamEvent[], done: boolean): { stored: number } {
    const key = `${accountId} ${sessionId}`;
    let session = this.sessions.get(key);
    if (!session) this.sessions.set(key, (session = { streams: new Map(), bytes: 0 }));
    let log = session.streams.get(streamId);
    if (!log) {
      log = { events: [], done: false, bytes: 0, expiresAt: 0, watchers: new Set() };
      session.streams.set(streamId, log);
    }
    let stored = 0;
    for (const event of events) {
      if (log.events.some((e) => e.seq === event.seq)) continue;
      log.events.push(event);
      log.bytes += event.data.length;
      session.bytes += event.data.length;
      stored++;
    }
    log.events.sort((a, b) => a.seq - b.seq);
    while (log.events.length > MAX_EVENTS_PER_STREAM) {
      const gone = log.events.shift()!;
      log.bytes -= gone.data.length;
      session.bytes -= gone.data.length;
    }
    log.done ||= done;
    log.expiresAt = this.now() + EVENT_TTL_MS;
    this.bound(session, log);
    for (const wake of [...log.watchers]) wake(log);
    return { stored };
  }

  /**
   * The stream's events after `after`; when there are none yet and it is not done, parks until one
   * comes or `timeoutMs` passes (then an empty answer). A stream not written yet is waited for too:
   * the front holding the wait may not have stored anything when the client reconnects elsewhere.
   */
  after(accountId: string, sessionId: string, streamId: string, after: number, timeoutMs: number, signal: CancelSignal): StreamEvents | Promise<StreamEvents> {
    const key = `${accountId} ${sessionId}`;
    const found = this.sessions.get(key)?.streams.get(streamId);
    const now = found ? answerOf(found, after) : null;
    if ((now && (now.events.length > 0 || now.done)) || timeoutMs <= 0 || signal.aborted) return now ?? { events: [], done: false };
    return new Promise<StreamEvents>((resolve) => {
      let log = found;
      if (!log) {
        // A placeholder the writer fills; it expires like any stream if nobody does.
        this.put(accountId, sessionId, streamId, [], false);
        log = this.sessions.get(key)!.streams.get(streamId)!;
      }
      const target = log;
      const finish = (answer: StreamEvents) => {
        if (!target.watchers.delete(wake)) return;
        this.watching--;
        clearTimeout(timer);
        resolve(answer);
      };
      const wake = (l: StreamLog) => {
        const answer = answerOf(l, after);
        if (answer.events.length > 0 || answer.done) finish(answer);
      };
      const timer = setTimeout(() => finish(answerOf(target, after)), timeoutMs);
      target.watchers.add(wake);
      this.watching++;
      signal.addEventListener('abort', () => finish(answerOf(target, after)));
    });
  }

  /** A session ended: its streams go (parked reconnections answer with what there is). */
  drop(accountId: string, sessionId: string): void {
    const session = this.sessions.get(`${accountId} ${sessionId}`);
    if (!session) return;
    this.sessions.delete(`${accountId} ${sessionId}`);
    for (const log of session.streams.values()) this.release(log);
  }

  /** Over its bounds, a session's oldest streams go first (never the one just written). */
  private bound(session: SessionLogs, keep: StreamLog): void {
    for (const [id, log] of session.streams) {
      if (session.streams.size <= MAX_STREAMS_PER_SESSION && session.bytes <= MAX_BYTES_PER_SESSION) break;
      if (log === keep) continue;
      session.streams.delete(id);
      session.bytes -= log.bytes;
      this.release(log);
    }
  }

  /** Parked reconnections of a stream that goes answer with what it held. */
  private release(log: StreamLog): void {
    for (const wake of [...log.watchers]) {
      log.done = true;
      wake(log);
    }
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, session] of this.sessions) {
      for (const [id, log] of session.streams) {
        if (log.expiresAt > now || log.watchers.size > 0) continue;
        session.streams.delete(id);
        session.bytes -= log.bytes;
      }
      if (session.streams.size === 0) this.sessions.delete(key);
    }
  }

  /** Shutdown: parked reconnections answer with what they have. */
  drain(): void {
    clearInterval(this.sweeper);
    for (const session of this.sessions.values()) for (const log of session.streams.values()) this.release(log);
  }
}

function answerOf(log: StreamLog, after: number): StreamEvents {
  return { events: log.events.filter((e) => e.seq > after), done: log.done };
}
