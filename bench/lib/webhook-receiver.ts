// webhook-delivery, generator side: a loopback HTTPS receiver (self-signed CA) that checks each
// delivery's X-Service-Signature (hex HMAC-SHA256 of the raw body keyed by the API key) and answers
// 200, and the SMTP sender whose mails trigger the deliveries, in one process so that "first SMTP
// send" and "last delivery" are read on one clock.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { smallMail } from './mails.js';
import { SmtpConnection } from './smtp-client.js';
import { round, Samples, type Percentiles } from './stats.js';

export interface ListenParams {
  certFile: string;
  keyFile: string;
  apiKey: string;
}

export interface RunParams {
  smtpPort: number;
  inboxes: string[];
  total: number;
  /** Webhooks per inbox, registered at /hook/0 … /hook/{k-1}: each mail yields k deliveries. */
  fanOut: number;
  connections: number;
  timeLimitMs: number;
}

export interface WebhookRunResult {
  sent: number;
  accepted: number;
  delivered: number;
  duplicates: number;
  bad_signature: number;
  unmatched: number;
  duration_s: number;
  ops_per_s: number;
  latency: Percentiles;
  receiver_connections: number;
  /** From the first SMTP send to the last mail's answer, and the deliveries received by then. */
  smtp_s: number;
  delivered_during_smtp: number;
}

/**
 * A mail's subject names its run and its number. Each run's mails are its own: Mailcue answers a
 * byte-identical resend with 250 and stores nothing (idempotent ingest), so a counted run whose
 * mails repeated the warm-up's within the same second of their Date header lost their deliveries.
 */
const TAG = /hook(\d+)-(\d+)/;
const HOOK_PATH = /^\/hook\/(\d+)$/;

class Receiver {
  private server: https.Server | null = null;
  private apiKey = '';
  private dataEnd: Float64Array = new Float64Array(0);
  /** Deliveries seen, by mail × fanOut + webhook. */
  private seen = new Uint8Array(0);
  /** The run whose deliveries are counted now. */
  private runNo = 0;
  private fanOut = 1;
  private latency = new Samples();
  private delivered = 0;
  private duplicates = 0;
  private badSignature = 0;
  private unmatched = 0;
  private connections = 0;
  private lastDelivery = 0;
  private onDelivery: (() => void) | null = null;

  async listen(p: ListenParams): Promise<{ port: number }> {
    this.apiKey = p.apiKey;
    this.server = https.createServer({ cert: readFileSync(p.certFile), key: readFileSync(p.keyFile), keepAliveTimeout: 30_000 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.handle(Buffer.concat(chunks), req.headers['x-service-signature'], req.url ?? '');
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return { port: (this.server.address() as AddressInfo).port };
  }

  private handle(body: Buffer, signature: string | string[] | undefined, url: string): void {
    const now = performance.now();
    const expected = createHmac('sha256', this.apiKey).update(body).digest();
    const given = typeof signature === 'string' && /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : null;
    if (!given || !timingSafeEqual(expected, given)) {
      this.badSignature++;
      return;
    }
    let i = -1;
    try {
      const event = JSON.parse(body.toString('utf8'));
      const m = event?.event === 'new_message' ? TAG.exec(String(event.message?.subject ?? '')) : null;
      if (m && Number(m[1]) === this.runNo) i = Number(m[2]);
    } catch {
      /* not JSON */
    }
    const hook = Number(HOOK_PATH.exec(url)?.[1] ?? -1);
    if (i < 0 || i >= this.dataEnd.length || hook < 0 || hook >= this.fanOut) {
      this.unmatched++;
      return;
    }
    const slot = i * this.fanOut + hook;
    if (this.seen[slot]) {
      this.duplicates++;
      return;
    }
    this.seen[slot] = 1;
    this.delivered++;
    this.lastDelivery = now;
    if (this.dataEnd[i]) this.latency.add(now - this.dataEnd[i]!);
    this.onDelivery?.();
  }

  async run(p: RunParams): Promise<WebhookRunResult> {
    this.fanOut = p.fanOut;
    this.runNo++;
    this.dataEnd = new Float64Array(p.total);
    this.seen = new Uint8Array(p.total * p.fanOut);
    this.latency = new Samples();
    this.delivered = this.duplicates = this.badSignature = this.unmatched = 0;
    const mails = Array.from({ length: p.total }, (_, i) => smallMail(p.inboxes[i % p.inboxes.length]!, `hook${this.runNo}-${i}`, i));
    const conns = await Promise.all(Array.from({ length: p.connections }, () => SmtpConnection.open('127.0.0.1', p.smtpPort)));
    let done: () => void = () => undefined;
    const allDelivered = new Promise<void>((resolve) => (done = resolve));
    let target = p.total * p.fanOut;
    this.onDelivery = () => {
      if (this.delivered >= target) done();
    };
    const t0 = performance.now();
    const deadline = t0 + p.timeLimitMs;
    let next = 0;
    let accepted = 0;
    await Promise.all(conns.map(async (c) => {
      while (next < mails.length && performance.now() < deadline) {
        const i = next++;
        const reply = await c.send(mails[i]!, (t) => (this.dataEnd[i] = t));
        if (reply.code === 250) accepted++;
      }
      c.close();
    }));
    const smtpS = (performance.now() - t0) / 1000;
    const deliveredDuringSmtp = this.delivered;
    target = accepted * p.fanOut;
    if (this.delivered < target) {
      await Promise.race([allDelivered, new Promise((r) => setTimeout(r, Math.max(2000, deadline - performance.now())))]);
    }
    this.onDelivery = null;
    const duration = ((this.lastDelivery || performance.now()) - t0) / 1000;
    return {
      sent: next, accepted, delivered: this.delivered, duplicates: this.duplicates, bad_signature: this.badSignature, unmatched: this.unmatched,
      duration_s: round(duration), ops_per_s: round(this.delivered / duration, 1), latency: this.latency.percentiles(), receiver_connections: this.connections,
      smtp_s: round(smtpS), delivered_during_smtp: deliveredDuringSmtp,
    };
  }
}

export const receiver = new Receiver();
