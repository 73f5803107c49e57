// Tagged mail under faults (DESIGN.md §8 "Faults the cluster must survive"): senders deliver
// numbered tags to chosen inboxes over SMTP, retrying a 4xx or a lost connection with the very same
// bytes as an MTA does, and record every tag acknowledged with 250; afterwards each acknowledged
// tag must be readable exactly once.
import type { ExecutionContext } from 'ava';
import nodemailer from 'nodemailer';
import type { Service } from './service.js';

type Json = Record<string, any>;

export interface Acked {
  readonly inbox: string;
  readonly at: number;
}

function rawMail(tag: string, to: string): string {
  return [
    'From: Faults <faults@example.com>', `To: ${to}`, `Subject: tag ${tag}`, `Message-ID: <${tag}@faults.example>`,
    'Date: Mon, 23 Nov 2026 12:00:00 +0000', 'Content-Type: text/plain; charset=utf-8', '', `tag ${tag}`, '',
  ].join('\r\n');
}

/** Sends one message until it is acknowledged or `stopBy`; true once a 250 came. */
export async function deliver(smtpPort: number, tag: string, to: string, stopBy: number): Promise<boolean> {
  const raw = rawMail(tag, to);
  while (Date.now() < stopBy) {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, connectionTimeout: 5000, socketTimeout: 10_000 });
    try {
      const info = await transport.sendMail({ envelope: { from: 'faults@example.com', to: [to] }, raw });
      if (((info as { rejected?: unknown[] }).rejected ?? []).length === 0) return true;
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      if (code !== undefined && code >= 500) throw new Error(`${tag}: ${String(err)}`);
    } finally {
      transport.close();
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** `senders` loops over `inboxes` until `loadEnd`, each tag retried until `loadEnd + graceMs`. */
export async function taggedLoad(smtpPort: number, prefix: string, inboxes: readonly string[], loadEnd: number, graceMs: number, senders = 3): Promise<Map<string, Acked>> {
  const acked = new Map<string, Acked>();
  await Promise.all(Array.from({ length: senders }, async (_, s) => {
    for (let i = 0; Date.now() < loadEnd && i < 500; i++) {
      const tag = `${prefix}-${s}-${i}`;
      const inbox = inboxes[(s + i * senders) % inboxes.length]!;
      if (await deliver(smtpPort, tag, inbox, loadEnd + graceMs)) acked.set(tag, { inbox, at: Date.now() });
    }
  }));
  return acked;
}

/** Every subject of an inbox through one front, retrying 503s with Retry-After for up to `patienceMs`. */
export async function subjects(front: string, key: string, inbox: string, patienceMs = 30_000): Promise<string[]> {
  const out: string[] = [];
  let before: string | null = null;
  const end = Date.now() + patienceMs;
  for (let page = 0; page < 50; page++) {
    const url = `${front}/v1/inboxes/${inbox}/messages?limit=100${before ? `&before=${before}` : ''}`;
    let res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    while (res.status === 503 && res.headers.get('retry-after') && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 250));
      res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    }
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    const data = ((await res.json()) as Json).data as Json[];
    out.push(...data.map((m) => m.subject as string));
    if (data.length < 100) break;
    before = data.at(-1)!.id;
  }
  return out;
}

/** Asserts every acknowledged tag is in its inbox exactly once, through every front; returns how many were not. */
export async function assertExactlyOnce(t: ExecutionContext, svc: Service, key: string, acked: Map<string, Acked>, when: string): Promise<number> {
  const byInbox = new Map<string, string[]>();
  for (const [tag, a] of acked) byInbox.set(a.inbox, [...(byInbox.get(a.inbox) ?? []), tag]);
  let wrong = 0;
  for (const front of svc.frontUrls) {
    for (const [inbox, tags] of byInbox) {
      const counts = new Map<string, number>();
      for (const s of await subjects(front, key, inbox)) counts.set(s, (counts.get(s) ?? 0) + 1);
      for (const tag of tags) {
        const n = counts.get(`tag ${tag}`) ?? 0;
        if (n !== 1 && wrong++ < 10) t.log(`${when}: ${tag} is in ${inbox} ${n} times via ${front}`);
      }
    }
  }
  t.is(wrong, 0, `${when}: ${wrong} of ${acked.size} acknowledged tags not stored exactly once`);
  return wrong;
}
