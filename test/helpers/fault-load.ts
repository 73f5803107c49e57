// The steady tagged load of the fault suite: SMTP senders (one in ten mails to two inboxes on
// different primaries; a 4xx or a lost connection is sent again with the very same bytes, as an
// MTA does), REST readers through every front, long-polls kept parked on every front (REST, and
// MCP `watch_email` through the official SDK client), and
// webhooks to a real HTTPS receiver. It records what a checker needs afterwards: every tag
// acknowledged with 250 (and when), every message a reader or a long-poll was shown, every
// long-poll answered with an error, and the stretches of time writes and reads were refused.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import nodemailer from 'nodemailer';
import { slotOf } from '../../src/cluster/slots.js';
import type { ClusterStatus } from '../../src/cluster/status.js';
import type { FaultCluster } from './fault-cluster.js';
import type { Receiver } from './https-receiver.js';
import { connectMcp } from './mcp.js';

type Json = Record<string, any>;

export interface Acked {
  to: string[];
  /** When the first attempt began, when the 250 came, and how many attempts failed before it. */
  sent: number;
  at: number;
  retries: number;
  /** The SMTP port (front) that acknowledged it. */
  port: number;
}

/** A message a client was shown: by a list or a long-poll, through a front. */
export interface Seen {
  inbox: string;
  id: string;
  subject: string;
  at: number;
  how: string;
}

export interface LoadOptions {
  senders: number;
  inboxes: number;
  /** Inboxes with a webhook (the first ones). */
  hooked: number;
  /** Inboxes with long-polls parked on them (after the hooked ones), and polls per front on each. */
  polled: number;
  pollsPerFront: number;
  /** A run's prefix for tags and inbox names, so runs never mix. */
  run: string;
}

const DEFAULTS: Omit<LoadOptions, 'run'> = { senders: 8, inboxes: 24, hooked: 6, polled: 6, pollsPerFront: 2 };
/**
 * An attempt that takes longer than this counts towards unavailability, as a refusal does: well
 * above a 250's latency on a busy two-core machine (the control run's figure is the noise floor).
 */
const SLOW_MS = 3000;
const SMTP_TIMEOUT_MS = 30_000;
/** The shortest long-poll the API accepts. */
const POLL_TIMEOUT_S = 10;

export function rawMail(tag: string, to: string[]): string {
  return [
    'From: Faults <faults@example.com>',
    `To: ${to.join(', ')}`,
    `Subject: tag ${tag}`,
    `Message-ID: <${tag}@faults.example>`,
    'Date: Mon, 23 Nov 2026 12:00:00 +0000',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `tag ${tag}, code 482913`,
    '',
  ].join('\r\n');
}

export type Attempt = { ok: true } | { ok: false; permanent: boolean; why: string };

/** One SMTP attempt: 250 for every recipient, a temporary failure (4xx, lost connection, timeout), or a permanent one (5xx). */
export async function attempt(port: number, to: string[], raw: string): Promise<Attempt> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1', port, secure: false, ignoreTLS: true,
    connectionTimeout: SMTP_TIMEOUT_MS, greetingTimeout: SMTP_TIMEOUT_MS, socketTimeout: SMTP_TIMEOUT_MS,
  });
  try {
    const info = await transport.sendMail({ envelope: { from: 'faults@example.com', to }, raw });
    const rejections = (info as { rejectedErrors?: { responseCode?: number; response?: string }[] }).rejectedErrors ?? [];
    if (rejections.length === 0) return { ok: true };
    return { ok: false, permanent: rejections.some((e) => (e.responseCode ?? 0) >= 500), why: rejections.map((e) => e.response).join('; ') };
  } catch (err) {
    const code = (err as { responseCode?: number }).responseCode;
    return { ok: false, permanent: code !== undefined && code >= 500, why: String((err as Error).message) };
  } finally {
    transport.close();
  }
}

/** Total length of the union of [from, to] intervals, in seconds. */
export function unionSeconds(intervals: [number, number][]): number {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let start = -1;
  let end = -1;
  for (const [a, b] of sorted) {
    if (a > end) {
      total += end - start;
      start = a;
      end = b;
    } else end = Math.max(end, b);
  }
  total += end - start;
  return Math.round(total / 100) / 10;
}

/** What one long-poll answered: a mail (or none, on a timeout) and the cursor to wait from next, or an error. */
type PollAnswer = { message: Json | null; cursor: string | null } | { error: string };

export class Workload {
  readonly options: LoadOptions;
  readonly inboxes: string[] = [];
  readonly hooked: string[] = [];
  readonly polled: string[] = [];
  readonly acked = new Map<string, Acked>();
  /** Keyed by inbox and message id. */
  readonly seen = new Map<string, Seen>();
  readonly pollErrors: string[] = [];
  /** Messages long-polls answered with, by interface (the polls did run). */
  readonly polledShown = { rest: 0, mcp: 0 };
  readonly refused: string[] = [];
  readonly readErrors: string[] = [];
  /** Tags sent but never acknowledged when the load stopped (no promise was made for them). */
  readonly unacknowledged: string[] = [];
  /** When writes or reads were refused or slow. */
  readonly writeGaps: [number, number][] = [];
  readonly readGaps: [number, number][] = [];
  key = '';
  private running = false;
  private targets: string[] = [];
  private pairs: string[][] = [];
  private tasks: Promise<void>[] = [];
  /** The long-polls waiting now: the load's end aborts them (one controller each: a shared signal collects listeners). */
  private readonly polls = new Set<AbortController>();
  private sentCount = 0;
  /** One MCP session per front, its long-polls side by side on it. */
  private readonly mcpClients: Client[] = [];

  constructor(private readonly cluster: FaultCluster, private readonly receiver: Receiver, options: Partial<LoadOptions> & { run: string }) {
    this.options = { ...DEFAULTS, ...options };
  }

  private auth(): Record<string, string> {
    return { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' };
  }

  /** An account, its inboxes, a webhook on each hooked inbox, an MCP session on each front. */
  async prepare(): Promise<void> {
    const { run } = this.options;
    this.key = await this.cluster.createAccount();
    this.receiver.key = this.key;
    for (let i = 0; i < this.options.inboxes; i++) {
      const address = `${run}-${i}@mailcue.test`;
      const front = this.cluster.fronts[i % this.cluster.fronts.length]!;
      const res = await fetch(`${front.url}/v1/inboxes`, { method: 'POST', headers: this.auth(), body: JSON.stringify({ address }) });
      if (res.status !== 201) throw new Error(`create ${address}: ${res.status} ${await res.text()}`);
      this.inboxes.push(address);
    }
    this.hooked.push(...this.inboxes.slice(0, this.options.hooked));
    this.polled.push(...this.inboxes.slice(this.options.hooked, this.options.hooked + this.options.polled));
    for (const inbox of this.hooked) {
      const res = await fetch(`${this.cluster.fronts[0]!.url}/v1/webhooks`, {
        method: 'POST', headers: this.auth(), body: JSON.stringify({ url: `${this.receiver.url}?h=${encodeURIComponent(inbox)}`, inbox }),
      });
      if (res.status !== 201) throw new Error(`webhook on ${inbox}: ${res.status} ${await res.text()}`);
    }
    // One MCP session per front, opened before any fault.
    for (const front of this.cluster.fronts) this.mcpClients.push(await connectMcp('streamable-http', front.url, this.key));
  }

  /** Starts senders (to `targets`, default every inbox), readers and long-polls. */
  start(status: ClusterStatus, targets: string[] = this.inboxes): void {
    this.running = true;
    this.targets = targets;
    const primaryOf = (inbox: string) => status.map[slotOf(inbox)]!.primary;
    for (const a of targets) for (const b of targets) if (a < b && primaryOf(a) !== primaryOf(b)) this.pairs.push([a, b]);
    for (let s = 0; s < this.options.senders; s++) this.tasks.push(this.sender(s));
    for (const front of this.cluster.fronts) {
      this.tasks.push(this.reader(front.url));
      for (const inbox of this.polled) for (let p = 0; p < this.options.pollsPerFront; p++) this.tasks.push(this.poller(front.url, inbox));
    }
    this.cluster.fronts.forEach((front, i) => {
      const client = this.mcpClients[i];
      // One inbox: each answer is a tool call, and the plan's 200 tool calls a minute is the account's
      // (six inboxes on two fronts went over it under this load).
      const inbox = this.polled[0];
      if (client && inbox) this.tasks.push(this.mcpPoller(client, front.url, inbox));
    });
  }

  /** How many tags have been acknowledged: a latch for the fault's schedule. */
  get acknowledged(): number {
    return this.acked.size;
  }

  /** Tags acknowledged after `since` to an inbox that `pick` selects. */
  ackedSince(since: number, pick: (inbox: string) => boolean = () => true): number {
    let n = 0;
    for (const a of this.acked.values()) if (a.sent >= since && a.to.some(pick)) n++;
    return n;
  }

  /** Stops the load; a message already being sent is retried until acknowledged or `graceMs` passes. */
  async stop(graceMs = 30_000): Promise<void> {
    this.running = false;
    this.graceUntil = Date.now() + graceMs;
    for (const poll of this.polls) poll.abort();
    await Promise.all(this.tasks);
    await Promise.all(this.mcpClients.map((c) => c.close().catch(() => undefined)));
  }

  private graceUntil = Infinity;

  private async sender(s: number): Promise<void> {
    const fronts = this.cluster.fronts;
    for (let i = 0; this.running && i < 2000; i++) {
      const n = this.sentCount++;
      const tag = `${this.options.run}-s${s}-${i}`;
      const to = n % 10 === 9 && this.pairs.length > 0 ? this.pairs[(s * 31 + i) % this.pairs.length]! : [this.targets[(s * 7 + i) % this.targets.length]!];
      // Each sender keeps to one front, so a fault of one front shows on its own senders.
      const port = fronts[s % fronts.length]!.smtpPort;
      const raw = rawMail(tag, to);
      const sent = Date.now();
      let retries = 0;
      let lastFailure = 0;
      for (;;) {
        const began = Date.now();
        const result = await attempt(port, to, raw);
        const ended = Date.now();
        if (result.ok) {
          if (retries > 0 || ended - began > SLOW_MS) this.writeGaps.push([retries > 0 ? sent : began, ended]);
          this.acked.set(tag, { to, sent, at: ended, retries, port });
          break;
        }
        if (result.permanent) {
          this.refused.push(`${tag} to ${to.join(',')}: ${result.why}`);
          this.writeGaps.push([sent, ended]);
          break;
        }
        retries++;
        lastFailure = ended;
        if (ended > this.graceUntil) {
          this.unacknowledged.push(`${tag}: ${result.why}`);
          this.writeGaps.push([sent, lastFailure]);
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private record(inbox: string, m: Json, how: string): void {
    const key = `${inbox} ${m.id}`;
    if (!this.seen.has(key)) this.seen.set(key, { inbox, id: String(m.id), subject: String(m.subject), at: Date.now(), how });
  }

  private async reader(front: string): Promise<void> {
    for (let i = 0; this.running && i < 20_000; i++) {
      const inbox = this.inboxes[i % this.inboxes.length]!;
      const began = Date.now();
      try {
        const res = await fetch(`${front}/v1/inboxes/${inbox}/messages?limit=20`, { headers: this.auth(), signal: AbortSignal.timeout(SMTP_TIMEOUT_MS) });
        const body = (await res.json()) as Json;
        if (res.status === 200) {
          for (const m of body.data as Json[]) this.record(inbox, m, `list via ${front}`);
          if (Date.now() - began > SLOW_MS) this.readGaps.push([began, Date.now()]);
        } else {
          this.readGaps.push([began, Date.now()]);
          // A 503 with Retry-After is the documented "try again"; anything else is an error.
          if (!(res.status === 503 && res.headers.get('retry-after'))) this.readErrors.push(`${front} ${inbox}: ${res.status} ${JSON.stringify(body)}`);
        }
      } catch (err) {
        this.readGaps.push([began, Date.now()]);
        this.readErrors.push(`${front} ${inbox}: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** One client's long-poll loop: each answer moves its cursor; any error is recorded. */
  private async pollLoop(kind: 'rest' | 'mcp', front: string, inbox: string, wait: (since: string | null, signal: AbortSignal) => Promise<PollAnswer>): Promise<void> {
    const label = kind === 'rest' ? front : `MCP ${front}`;
    let since: string | null = null;
    while (this.running) {
      const abort = new AbortController();
      this.polls.add(abort);
      try {
        const answer = await wait(since, abort.signal);
        if ('error' in answer) {
          this.pollErrors.push(`${label} ${inbox} since ${since}: ${answer.error}`);
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        if (answer.message) {
          this.record(inbox, answer.message, `${kind === 'rest' ? 'long-poll' : 'MCP watch_email'} via ${front}`);
          this.polledShown[kind]++;
        }
        since = answer.cursor ?? since;
      } catch (err) {
        if (!this.running) return;
        this.pollErrors.push(`${label} ${inbox} since ${since}: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 200));
      } finally {
        this.polls.delete(abort);
      }
    }
  }

  /** REST `…/messages/wait` with the id of each mail it answers with. */
  private poller(front: string, inbox: string): Promise<void> {
    return this.pollLoop('rest', front, inbox, async (since, signal) => {
      const url = `${front}/v1/inboxes/${inbox}/messages/wait?timeout=${POLL_TIMEOUT_S}${since ? `&since=${since}` : ''}`;
      const res = await fetch(url, { headers: this.auth(), signal });
      const body = (await res.json()) as Json;
      if (res.status !== 200) return { error: `${res.status} ${JSON.stringify(body)}` };
      const message = body.timed_out === false && body.data ? (body.data as Json) : null;
      return { message, cursor: message ? String(message.id) : null };
    });
  }

  /** MCP `watch_email` with the cursor of each answer; an error result or a JSON-RPC error is recorded. */
  private mcpPoller(client: Client, front: string, inbox: string): Promise<void> {
    return this.pollLoop('mcp', front, inbox, async (since, signal) => {
      const res = await client.callTool(
        { name: 'watch_email', arguments: { inbox, timeout: POLL_TIMEOUT_S, ...(since ? { since } : {}) } },
        undefined,
        { signal, timeout: (POLL_TIMEOUT_S + 30) * 1000 },
      );
      const out = res.structuredContent as Json | undefined;
      if (res.isError || !out) return { error: JSON.stringify(res.content) };
      return { message: out.timed_out === false && out.message ? (out.message as Json) : null, cursor: String(out.cursor) };
    });
  }
}
