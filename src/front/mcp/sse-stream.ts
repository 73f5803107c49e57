// A server-sent-events answer on a uWS response: `event: message` frames of one-line JSON,
// `: keepalive` comments every 15 s (idle watchdogs kill silent streams), and a hard cap on how
// long the connection may stay open.
import type { Exchange } from '../http/exchange.js';

export const KEEPALIVE_MS = 15_000;

// Timer callbacks take the stream as an argument: a parked stream then holds no closures.
function keepalive(stream: SseStream): void {
  stream.comment('keepalive');
}

function capReached(stream: SseStream): void {
  stream.close();
}

export class SseStream {
  private readonly keepalive: NodeJS.Timeout;
  private readonly cap: NodeJS.Timeout;
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
    this.keepalive = setInterval(keepalive, KEEPALIVE_MS, this);
    this.cap = setTimeout(capReached, capMs, this);
    ex.signal.addEventListener('abort', this);
  }

  /** The client hung up. */
  handleEvent(): void {
    this.finish();
  }

  comment(text: string): void {
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

  /** A priming event (an id with empty data) for clients on 2025-11-25 or later. */
  prime(id: string): void {
    if (!this.closed) this.ex.write(`id: ${id}\ndata: \n\n`);
  }

  close(): void {
    if (this.closed) return;
    this.ex.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepalive);
    clearTimeout(this.cap);
    for (const h of this.onCloseHandlers.splice(0)) h();
  }
}
