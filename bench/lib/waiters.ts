// Parked long-polls, held by a generator child: raw keep-alive sockets each carrying one REST
// `GET …/messages/wait` or one MCP `tools/call watch_email` (answered as SSE). Then, for
// wake-latency, mails sent over SMTP from this same process, so the end of DATA and the waiter's
// answer are timed on one clock.
import net from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { smallMail } from './mails.js';
import { SmtpConnection } from './smtp-client.js';
import { Samples, type Percentiles } from './stats.js';

type Kind = 'rest' | 'mcp';

interface Waiter {
  socket: net.Socket;
  inbox: string;
  kind: Kind;
  buf: string;
  state: 'pending' | 'woken' | 'timed_out' | 'error' | 'closed';
  wokeAt: number;
  /** With `repark`: the request sent again on the same connection when the wait times out. */
  again: string | null;
  /** When the socket connected and how many answers it has had: an error names the phase it ended in. */
  connectedAt: number;
  answers: number;
  answeredAt: number;
}

export interface ParkParams {
  /** HTTP ports of the fronts; waiters are spread over them. */
  ports: number[];
  key: string;
  inboxes: string[];
  count: number;
  /** Waiter j watches inboxes[(first + j) % inboxes.length]. */
  first: number;
  /** Share of the waiters that are MCP watch_email calls (the rest are REST waits). */
  mcpShare: number;
  timeoutS: number;
  /** Source addresses to spread sockets over (ephemeral ports are per source address). */
  localAddresses: string[];
  /** Connections opened at once. */
  batch: number;
  timeLimitMs: number;
  /**
   * A wait that times out is sent again at once on its connection, so a level stays parked however
   * long reaching it takes (waits last at most 60 s; 100,000 of them take longer than that to park
   * on a slow machine).
   */
  repark?: boolean;
}

export interface WakeParams {
  smtpPort: number;
  /** Inboxes to mail, one mail each; every pending waiter of each is expected to answer. */
  targets: string[];
  connections: number;
  timeLimitMs: number;
}

export interface WakeResult {
  mails: number;
  accepted: number;
  woken: number;
  missing: number;
  latency: Percentiles;
  rest: Percentiles & { n: number };
  mcp: Percentiles & { n: number };
  duration_s: number;
}

const BATCH_WAIT_MS = 15_000;
/** This process's event-loop delay: a reset after a stall here is the client's doing, not the service's. */
const loopDelay = monitorEventLoopDelay({ resolution: 20 });
loopDelay.enable();
const WOKEN = /"timed_out":\s*false/;
const TIMED_OUT = /"timed_out":\s*true/;

class Waiters {
  private readonly all: Waiter[] = [];
  private readonly byInbox = new Map<string, Waiter[]>();
  private readonly sessions = new Map<number, string[]>();
  private rpcId = 0;
  private firstError: string | null = null;
  private errors = 0;
  /** Re-parked waits sent again on a new connection (see connect()), and why the last one was. */
  private reconnects = 0;
  private lastReconnect: string | null = null;
  onWake: ((w: Waiter) => void) | null = null;

  private async openSessions(port: number, key: string, n: number): Promise<string[]> {
    const have = this.sessions.get(port) ?? [];
    while (have.length < n) {
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
      });
      await res.text();
      const id = res.headers.get('mcp-session-id');
      if (res.status !== 200 || !id) throw new Error(`MCP initialize → ${res.status}`);
      await (await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })).text();
      have.push(id);
    }
    this.sessions.set(port, have);
    return have;
  }

  private request(kind: Kind, port: number, key: string, inbox: string, timeoutS: number, session: string | undefined): string {
    const host = `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n`;
    if (kind === 'rest') return `GET /v1/inboxes/${encodeURIComponent(inbox)}/messages/wait?timeout=${timeoutS} HTTP/1.1\r\n${host}\r\n`;
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.rpcId, method: 'tools/call', params: { name: 'watch_email', arguments: { inbox, timeout: timeoutS } } });
    return `POST /mcp HTTP/1.1\r\n${host}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: ${session}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  }

  private onData(w: Waiter, chunk: Buffer): void {
    if (w.state !== 'pending') return;
    w.buf += chunk.toString('latin1');
    if (WOKEN.test(w.buf)) {
      w.wokeAt = performance.now();
      w.state = 'woken';
      this.onWake?.(w);
    } else if (TIMED_OUT.test(w.buf)) {
      if (w.again !== null) {
        w.buf = '';
        w.answers++;
        w.answeredAt = performance.now();
        w.socket.write(w.again);
      } else {
        w.state = 'timed_out';
      }
    } else if (w.buf.startsWith('HTTP/1.1 ') && !w.buf.startsWith('HTTP/1.1 200')) {
      const end = w.buf.indexOf('\r\n\r\n');
      if (end >= 0 && w.buf.length > end + 4) this.fail(w, w.buf.slice(0, 300));
    }
  }

  private fail(w: Waiter, why: string): void {
    if (w.state !== 'pending') return;
    w.state = 'error';
    this.errors++;
    // The first few, so a handful of failures shows whether they share a phase.
    if (this.errors <= 5) this.firstError = this.firstError === null ? why : `${this.firstError} | ${why}`;
  }

  /**
   * Opens `w`'s connection and sends `request` on it. A re-parked wait whose connection was reset
   * before any byte of its answer came back is sent again on a new connection, as HTTP clients do
   * with a keep-alive connection the server closed while idle (uWS closes one 10 s after an answer
   * when no next request has been read; on a machine loaded with 100,000 sockets that can pass
   * between the answer and the client's next request). Counted in `reconnects`, not as an error.
   */
  private connect(w: Waiter, port: number, localAddress: string, request: string, connected: () => void, failed: () => void): void {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    w.socket = socket;
    socket.setNoDelay(true);
    socket.once('connect', () => {
      w.connectedAt = performance.now();
      socket.write(request);
      connected();
    });
    socket.on('data', (c: Buffer) => this.onData(w, c));
    socket.on('error', (err) => {
      if (w.state === 'pending' && w.answers > 0 && w.buf.length === 0 && w.again !== null) {
        this.reconnects++;
        const idle = Math.round(performance.now() - w.answeredAt);
        this.lastReconnect = `${err.message} ${idle} ms after the last timed-out answer`;
        socket.removeAllListeners('close');
        this.connect(w, port, localAddress, w.again, () => undefined, () => undefined);
        return;
      }
      const phase = w.connectedAt === 0 ? 'before connecting'
        : `${Math.round(performance.now() - w.connectedAt)} ms after connecting, after ${w.answers} timed-out answer(s), ${w.buf.length} bytes of the current one`;
      this.fail(w, `socket: ${err.message} (${phase}, to port ${port} from ${localAddress})`);
      failed();
    });
    socket.on('close', () => {
      if (w.state === 'pending') w.state = 'closed';
    });
  }

  async park(p: ParkParams): Promise<{ opened: number; errors: number; first_error: string | null; reconnects: number; last_reconnect: string | null; loop_delay_max_ms: number }> {
    const deadline = Date.now() + p.timeLimitMs;
    const mcpCount = Math.round(p.count * p.mcpShare);
    const perPort = Math.ceil(mcpCount / p.ports.length);
    const sessions = new Map<number, string[]>();
    // About 100 watch_email calls per MCP session.
    if (mcpCount > 0) for (const port of p.ports) sessions.set(port, await this.openSessions(port, p.key, Math.max(1, Math.ceil(perPort / 100))));
    let opened = 0;
    for (let b = 0; b < p.count && Date.now() < deadline; b += p.batch) {
      const n = Math.min(p.batch, p.count - b);
      // A connect the listen backlog dropped is retried by the kernel after a second or more; a
      // batch waits for it at most BATCH_WAIT_MS.
      let batchTimer: NodeJS.Timeout | undefined;
      const batchCap = new Promise<void>((resolve) => (batchTimer = setTimeout(resolve, BATCH_WAIT_MS)));
      await Promise.race([batchCap, Promise.all(Array.from({ length: n }, (_, k) => new Promise<void>((resolve) => {
        const j = b + k;
        const g = p.first + j;
        const inbox = p.inboxes[g % p.inboxes.length]!;
        const port = p.ports[g % p.ports.length]!;
        // Every 1/mcpShare-th waiter is an MCP call, spread evenly over inboxes and ports.
        const kind: Kind = p.mcpShare > 0 && Math.floor((j + 1) * p.mcpShare) > Math.floor(j * p.mcpShare) ? 'mcp' : 'rest';
        const ss = sessions.get(port);
        const session = kind === 'mcp' ? ss![j % ss!.length] : undefined;
        const request = this.request(kind, port, p.key, inbox, p.timeoutS, session);
        const w: Waiter = {
          socket: null as unknown as net.Socket, inbox, kind, buf: '', state: 'pending', wokeAt: 0, again: p.repark && kind === 'rest' ? request : null, connectedAt: 0, answers: 0, answeredAt: 0,
        };
        this.all.push(w);
        let list = this.byInbox.get(inbox);
        if (!list) this.byInbox.set(inbox, (list = []));
        list.push(w);
        this.connect(w, port, p.localAddresses[g % p.localAddresses.length]!, request, () => {
          opened++;
          resolve();
        }, resolve);
      })))]);
      clearTimeout(batchTimer);
    }
    return { opened, errors: this.errors, first_error: this.firstError, reconnects: this.reconnects, last_reconnect: this.lastReconnect, loop_delay_max_ms: Math.round(loopDelay.max / 1e6) };
  }

  async sendAndMeasure(p: WakeParams): Promise<WakeResult> {
    const dataEnd = new Map<string, number>();
    const all = new Samples();
    const rest = new Samples();
    const mcp = new Samples();
    let expected = 0;
    for (const t of p.targets) expected += (this.byInbox.get(t) ?? []).filter((w) => w.state === 'pending').length;
    let woken = 0;
    let resolveAll: () => void = () => undefined;
    const allWoken = new Promise<void>((resolve) => (resolveAll = resolve));
    this.onWake = (w) => {
      const t = dataEnd.get(w.inbox);
      if (t === undefined) return;
      const ms = w.wokeAt - t;
      all.add(ms);
      (w.kind === 'rest' ? rest : mcp).add(ms);
      if (++woken >= expected) resolveAll();
    };
    const t0 = performance.now();
    const deadline = t0 + p.timeLimitMs;
    const conns = await Promise.all(Array.from({ length: p.connections }, () => SmtpConnection.open('127.0.0.1', p.smtpPort)));
    let next = 0;
    let accepted = 0;
    await Promise.all(conns.map(async (c) => {
      while (next < p.targets.length && performance.now() < deadline) {
        const i = next++;
        const inbox = p.targets[i]!;
        const reply = await c.send(smallMail(inbox, `wake-${i}`, i), (t) => dataEnd.set(inbox, t));
        if (reply.code === 250) accepted++;
      }
      c.close();
    }));
    if (woken < expected) {
      await Promise.race([allWoken, new Promise((r) => setTimeout(r, Math.max(1000, deadline - performance.now())))]);
    }
    this.onWake = null;
    const pct = (s: Samples) => ({ n: s.count, ...s.percentiles() });
    return {
      mails: p.targets.length, accepted, woken, missing: expected - woken, latency: all.percentiles(), rest: pct(rest), mcp: pct(mcp),
      duration_s: (performance.now() - t0) / 1000,
    };
  }

  close(): Record<string, number | string | null> {
    const counts: Record<string, number | string | null> = { pending: 0, woken: 0, timed_out: 0, error: 0, closed: 0 };
    for (const w of this.all) {
      counts[w.state] = (counts[w.state] as number) + 1;
      w.socket.destroy();
    }
    counts.first_error = this.firstError;
    this.all.length = 0;
    this.byInbox.clear();
    return counts;
  }
}

export const waiters = new Waiters();
