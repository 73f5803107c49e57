// The account's change stream, GET /v1/events, read with fetch and a ReadableStream (EventSource
// cannot send the Authorization header). On every (re)connection the server sends `ready` and the
// page reloads what it shows, so nothing that happened while disconnected is missed.
import { session } from './api.js';
import { $ } from './dom.js';

export interface Change {
  kind: 'inbox' | 'domains' | 'webhooks';
  inbox?: string;
}

export interface LiveHandlers {
  /** Connected (again): reload everything shown. */
  ready(): void;
  changed(changes: Change[]): void;
}

const MAX_BACKOFF_MS = 10_000;

function setIndicator(on: boolean): void {
  const el = $('live');
  el.hidden = false;
  el.className = `live ${on ? 'on' : 'off'}`;
  el.textContent = on ? 'Live' : 'Reconnecting…';
}

export class Live {
  private controller: AbortController | null = null;
  private stopped = true;

  constructor(private readonly handlers: LiveHandlers) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
    $('live').hidden = true;
  }

  private async loop(): Promise<void> {
    let backoff = 500;
    while (!this.stopped) {
      this.controller = new AbortController();
      try {
        const res = await fetch('/v1/events', { headers: { authorization: `Bearer ${session.key ?? ''}`, accept: 'text/event-stream' }, signal: this.controller.signal });
        if (res.status === 401) {
          // The next API call signs the page out with the message; the stream just stops.
          this.handlers.ready();
          this.stop();
          return;
        }
        if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`);
        let connected = false;
        await this.read(res.body, () => {
          connected = true;
          backoff = 500;
        });
        // The server ends every stream after a while; a stream that was up reconnects at once.
        if (connected) continue;
      } catch {
        if (this.stopped) return;
      }
      if (this.stopped) return;
      setIndicator(false);
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  private async read(body: ReadableStream<Uint8Array>, connected: () => void): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = 'message';
        let data = '';
        for (const line of frame.split('\n')) {
          if (line.startsWith('event:')) name = line.slice(6).trim();
          else if (line.startsWith('data:')) data += line.slice(5).trim();
        }
        if (name === 'ready') {
          connected();
          setIndicator(true);
          this.handlers.ready();
        } else if (name === 'reset') {
          this.handlers.ready();
        } else if (name === 'change' && data) {
          this.handlers.changed((JSON.parse(data) as { changes: Change[] }).changes);
        }
      }
    }
  }
}
