// Resumable agent-tool streams (MCP 2025-11-25 "Resumability and Redelivery", SEP-1699 polling;
// issue 36). Every event on the SSE stream that carries a request's answer has an id
// `<stream>:<n>`; the answer, and what the client could not be sent while away, are stored with
// the session's account's shard (actors/session-events.ts). A client that reconnects with GET and
// `Last-Event-ID`, through any front, gets the events after that id: a wait that settled while it
// was away is answered then.
import type { Deps } from '../../services/deps.js';
import { randomHex } from '../../util/ids.js';
import { Cancellation } from '../../util/cancel.js';
import type { Exchange } from '../http/exchange.js';
import type { McpSession } from './sessions.js';
import { SseStream } from './sse-stream.js';

const EVENT_ID = /^([0-9a-f]{16}):(\d{1,9})$/;
/** A reconnection's wait for events answers this long before the connection cap. */
const CAP_MARGIN_MS = 1_000;

/** The stream and the number after which a reconnecting client wants events, or null if the id is not one of ours. */
export function parseEventId(id: string): { streamId: string; after: number } | null {
  const m = EVENT_ID.exec(id);
  return m ? { streamId: m[1]!, after: Number(m[2]) } : null;
}

/** The answer stream of one request: its events numbered, the answer (and what a broken stream missed) stored. */
export class ResumableStream {
  readonly streamId = randomHex(8);
  private seq = 0;

  constructor(private readonly deps: Deps, private readonly session: McpSession, readonly stream: SseStream, retryMs: number) {
    stream.prime(this.id(0), retryMs);
  }

  private id(seq: number): string {
    return `${this.streamId}:${seq}`;
  }

  get isClosed(): boolean {
    return this.stream.isClosed;
  }

  /** A notification: sent while the client is there, kept for its reconnection once it is not. */
  message(value: unknown): void {
    this.send(JSON.stringify(value), false);
  }

  /** The request's answer: sent, kept for a reconnection whatever became of the send, and the stream ends. */
  answer(json: string): void {
    this.send(json, true);
    this.stream.close();
  }

  private send(data: string, final: boolean): void {
    const seq = ++this.seq;
    const open = !this.stream.isClosed;
    if (open) this.stream.event('message', data, this.id(seq));
    // The answer is kept even when written: the connection may break before the client reads it.
    if (final || !open) this.store(seq, data, final);
  }

  private store(seq: number, data: string, done: boolean): void {
    const { accountId, id: sessionId } = this.session;
    this.deps.cluster
      .call({ type: 'session.events_put', accountId, sessionId, streamId: this.streamId, events: [{ seq, data }], done })
      .catch((err: Error) => this.deps.log.warn({ err, sessionId }, 'a stream event could not be kept for resumption'));
  }
}

/**
 * GET with Last-Event-ID: replays the stream's events after that id as they become available,
 * until its answer has gone out (then the stream ends) or the connection cap nears (then it ends
 * with the same id, and the client reconnects again).
 */
export function resumeStream(deps: Deps, ex: Exchange, session: McpSession, from: { streamId: string; after: number }, headers: [string, string][], capMs: number, retryMs: number): void {
  const stream = new SseStream(ex, headers, capMs);
  stream.prime(`${from.streamId}:${from.after}`, retryMs);
  const deadline = Date.now() + capMs - CAP_MARGIN_MS;
  const cancel = new Cancellation();
  stream.onClose(() => cancel.abort());
  let after = from.after;
  const next = (): void => {
    const timeoutMs = deadline - Date.now();
    if (stream.isClosed || timeoutMs <= 0) {
      stream.close();
      return;
    }
    const { accountId, id: sessionId } = session;
    deps.cluster
      .call(
        { type: 'session.events_after', accountId, sessionId, streamId: from.streamId, after, timeoutMs },
        { signal: cancel, timeoutMs: timeoutMs + 5_000 },
      )
      .then(
        (answer) => {
          for (const event of answer.events) {
            stream.event('message', event.data, `${from.streamId}:${event.seq}`);
            after = Math.max(after, event.seq);
          }
          if (answer.done) stream.close();
          else if (answer.events.length === 0) stream.close(); // timed out: the client comes back with the same id
          else next();
        },
        (err: Error) => {
          if (!cancel.aborted) deps.log.warn({ err, sessionId }, 'a stream could not be resumed');
          stream.close();
        },
      );
  };
  next();
}
