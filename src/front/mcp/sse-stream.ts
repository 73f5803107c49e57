// A server-sent-events answer on a uWS response: `event: message` frames of one-line JSON,
// `: keepalive` comments every 15 s (idle watchdogs kill silent streams), and a hard cap on how
// long the connection may stay open.
import type { Exchange } from '../http/exchange.js';

export const KEEPALIVE_MS = 15_000;
/** How often the open streams are visited: a cap closes at most this late, never early. */
const TICK_MS = 250;

/**
 * Every open stream, visited each tick for its keep-alive and its cap: one timer for all of
 * them rather than two per stream, which tens of thousands of parked tool calls would each keep.
 */
const openStreams = new Set<SseStream>();
let ticker: NodeJS.Timeout | null = null;

/** One visit of every open stream (the ticker's; a test passes its own clock). */
export function visitOpenStreams(now = Date.now()): void {
  for (const stream of openStreams) stream.onTick(now);
}

function track(stream: SseStream): void {
  openStreams.add(stream);
  ticker ??= setInterval(visitOpenStreams, TICK_MS);
}

function untrack(stream: SseStream): void {
  openStreams.delete(stream);
  if (openStreams.size === 0 && ticker) {
    clearInterval(ticker);
    ticker = null;
  }
}

export class SseStream {
  private nextKeepalive: number;
  private readonly closesAt: number;
  private closed = false;
  private readonly onCloseHandlers: (() => void)[] = [];

  constructor(private readonly ex: Exchange, headers: [string, string][], capMs: number) {
    ex.startStream(200, [
      ['Content-Type', 'text/event-stream'],
      ['Cache-Control', 'no-cache, no-transform'],
      ['Connection', 'keep-alive'],
      ['X-Accel-Buffering', 'no'],
      ...headers,
    ]);
    const now = Date.now();
    // The first keep-alive falls somewhere in the second half of the interval, and each after it
    // a whole interval later: streams opened together (a fleet of agents parking its waits at
    // once) would otherwise all write theirs in the same tick, every 15 s, on the loop that
    // answers everyone (5,000 parked watch_email calls: 5,000 writes in one turn).
    this.nextKeepalive = now + KEEPALIVE_MS - Math.floor(Math.random() * (KEEPALIVE_MS / 2));
    this.closesAt = now + capMs;
    track(this);
    ex.signal.addEventListener('abort', this);
  }

  /** Called each tick while open: the cap, then the keep-alive when one is due. */
  onTick(now: number): void {
    if (now >= this.closesAt) {
      this.close();
      return;
    }
    if (now >= this.nextKeepalive) {
      this.comment('keepalive');
      this.nextKeepalive = now + KEEPALIVE_MS;
    }
  }

  /** The client hung up. */
  handleEvent(): void {
    this.finish();
  }

  private comment(text: string): void {
    if (!this.closed) this.ex.write(`: ${text}\n\n`);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onClose(handler: () => void): void {
    if (this.closed) handler();
    else this.onCloseHandlers.push(handler);
  }

  event(name: string, data: string, id?: string): void {
    if (this.closed) return;
    this.ex.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${name}\ndata: ${data}\n\n`);
  }

  message(value: unknown): void {
    this.event('message', JSON.stringify(value));
  }

  /** A JSON-RPC message that is JSON text already. */
  messageText(json: string): void {
    this.event('message', json);
  }

  /**
   * Sends the response head now, behind a comment: uWS holds the head of a chunked response until
   * its first non-empty write, so a stream with nothing to say yet would leave its client without
   * a status until the first keep-alive, 15 s later.
   */
  open(): void {
    this.comment('open');
  }

  /**
   * A priming event (an id with empty data) for clients on 2025-11-25 or later, with the `retry:`
   * that tells the client how soon to reconnect with Last-Event-ID if the stream breaks (SEP-1699).
   */
  prime(id: string, retryMs?: number): void {
    if (!this.closed) this.ex.write(`id: ${id}\n${retryMs === undefined ? '' : `retry: ${retryMs}\n`}data: \n\n`);
  }

  close(): void {
    if (this.closed) return;
    this.ex.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    untrack(this);
    for (const h of this.onCloseHandlers.splice(0)) h();
  }
}
