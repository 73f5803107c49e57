// The fault suite's one checker (DESIGN.md §8 "Faults the cluster must survive"), run once the
// fault has healed and the cluster has settled. It reads every inbox through every front and
// asserts, from what the load recorded:
//  1. every acknowledged (250) mail is readable exactly once through every front;
//  2. no mail that a client was shown (a list, a long-poll) has vanished since;
//  3. no webhook was sent for a mail that does not exist;
//  4. every acknowledged mail to a hooked inbox was delivered to its webhook at least once, every
//     attempt under one `webhook-id`;
//  5. no parked long-poll was answered with an error;
// and no valid mail was refused for good (5xx). It only reads; it never waits for a number to come
// right except the webhooks still in their retry schedule, within a bound.
import type { FaultCluster } from './fault-cluster.js';
import type { Workload } from './fault-load.js';
import { unionSeconds } from './fault-load.js';
import type { Receiver } from './https-receiver.js';

type Json = Record<string, any>;

export interface Verdict {
  acknowledged: number;
  /** Acknowledged (tag, inbox) deliveries missing through at least one front. */
  lost: string[];
  /** (tag, inbox) stored more than once, through at least one front. */
  duplicated: string[];
  /** Messages a client was shown that are gone (by inbox and id). */
  vanished: string[];
  /** Webhook requests for a message that does not exist. */
  phantomWebhooks: string[];
  /** Acknowledged mails to hooked inboxes never delivered with a 200. */
  missingWebhooks: string[];
  /** Messages whose webhook requests carried more than one webhook-id. */
  splitWebhookIds: string[];
  pollErrors: string[];
  refused: string[];
  /** Inboxes a front could not list after the fault healed. */
  unreadable: string[];
  /** Seconds during which some write was refused or slow, and some read. */
  unavailableWriteS: number;
  unavailableReadS: number;
  readErrors: number;
  unacknowledged: number;
}

const LIST_RETRY_MS = 30_000;

/** Every message of an inbox through one front, oldest pages too; a 503 with Retry-After is retried within a bound. */
async function listAll(front: string, key: string, inbox: string): Promise<{ id: string; subject: string }[] | string> {
  const out: { id: string; subject: string }[] = [];
  let before: string | null = null;
  const end = Date.now() + LIST_RETRY_MS;
  for (let page = 0; page < 100; page++) {
    const url: string = `${front}/v1/inboxes/${inbox}/messages?limit=100${before ? `&before=${before}` : ''}`;
    let res: Response;
    for (;;) {
      res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      if (res.status === 503 && res.headers.get('retry-after') && Date.now() < end) {
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      break;
    }
    if (res.status !== 200) return `${res.status} ${await res.text()}`;
    const data = ((await res.json()) as Json).data as Json[];
    out.push(...data.map((m) => ({ id: String(m.id), subject: String(m.subject) })));
    if (data.length < 100) break;
    before = String(data.at(-1)!.id);
  }
  return out;
}

export async function check(cluster: FaultCluster, load: Workload, receiver: Receiver, webhookWaitMs = 30_000): Promise<Verdict> {
  const verdict: Verdict = {
    acknowledged: load.acked.size, lost: [], duplicated: [], vanished: [], phantomWebhooks: [], missingWebhooks: [], splitWebhookIds: [],
    pollErrors: [...load.pollErrors], refused: [...load.refused], unreadable: [],
    unavailableWriteS: unionSeconds(load.writeGaps), unavailableReadS: unionSeconds(load.readGaps),
    readErrors: load.readErrors.length, unacknowledged: load.unacknowledged.length,
  };
  const expected = new Map<string, string[]>();
  for (const [tag, a] of load.acked) for (const inbox of a.to) expected.set(inbox, [...(expected.get(inbox) ?? []), tag]);

  // What each front shows now: inbox → id → subject, and subject counts.
  const lost = new Set<string>();
  const duplicated = new Set<string>();
  const idsNow = new Map<string, Map<string, string>>();
  for (const front of cluster.fronts) {
    for (const inbox of load.inboxes) {
      const listed = await listAll(front.url, load.key, inbox);
      if (typeof listed === 'string') {
        verdict.unreadable.push(`${inbox} via ${front.url}: ${listed}`);
        for (const tag of expected.get(inbox) ?? []) lost.add(`${tag} in ${inbox}`);
        continue;
      }
      const counts = new Map<string, number>();
      for (const m of listed) counts.set(m.subject, (counts.get(m.subject) ?? 0) + 1);
      for (const tag of expected.get(inbox) ?? []) {
        const n = counts.get(`tag ${tag}`) ?? 0;
        if (n === 0) lost.add(`${tag} in ${inbox}`);
        if (n > 1) duplicated.add(`${tag} in ${inbox} (${n} times via ${front.url})`);
      }
      // The first front's view is the reference for ids (every front must agree: checked by the counts above).
      if (!idsNow.has(inbox)) idsNow.set(inbox, new Map(listed.map((m) => [m.id, m.subject])));
      else for (const [id, subject] of idsNow.get(inbox)!) if (!listed.some((m) => m.id === id)) lost.add(`${subject} (${id}) in ${inbox}: not via ${front.url}`);
    }
  }
  verdict.lost = [...lost].sort();
  verdict.duplicated = [...duplicated].sort();

  for (const s of load.seen.values()) {
    const now = idsNow.get(s.inbox);
    if (now && !now.has(s.id)) verdict.vanished.push(`${s.subject} (${s.id}) in ${s.inbox}, shown by ${s.how} at ${new Date(s.at).toISOString()}`);
  }

  // Webhooks: the expected (inbox, tag) notifications, delivered with a 200, under one id each.
  const wanted = new Set<string>();
  for (const [tag, a] of load.acked) for (const inbox of a.to) if (load.hooked.includes(inbox)) wanted.add(`${inbox} tag ${tag}`);
  const end = Date.now() + webhookWaitMs;
  for (;;) {
    const delivered = new Set<string>();
    for (const d of receiver.deliveries) {
      if (d.status !== 200) continue;
      try {
        const event = JSON.parse(d.body) as Json;
        if (new URL(d.url, 'https://x').searchParams.get('h') === event.inbox) delivered.add(`${event.inbox} ${event.message?.subject}`);
      } catch {
        /* counted as a phantom below */
      }
    }
    const missing = [...wanted].filter((k) => !delivered.has(k));
    if (missing.length === 0 || Date.now() > end) {
      verdict.missingWebhooks = missing.sort();
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const ids = new Map<string, Set<string>>();
  for (const d of receiver.deliveries) {
    // Each webhook's URL names its inbox: requests for other runs' inboxes (a receiver shared by runs) are theirs.
    const hook = new URL(d.url, 'https://x').searchParams.get('h');
    if (hook === null || !load.inboxes.includes(hook)) continue;
    let event: Json;
    try {
      event = JSON.parse(d.body) as Json;
    } catch {
      verdict.phantomWebhooks.push(`unparsable body for ${hook}: ${d.body.slice(0, 80)}`);
      continue;
    }
    const id = String(event.message?.id);
    if (event.inbox !== hook || !idsNow.get(hook)?.has(id)) verdict.phantomWebhooks.push(`${event.message?.subject} (${id}) for ${event.inbox} at ${d.url}`);
    const key = `${hook} ${id}`;
    if (!ids.has(key)) ids.set(key, new Set());
    ids.get(key)!.add(String(d.headers['webhook-id']));
  }
  verdict.phantomWebhooks = [...new Set(verdict.phantomWebhooks)].sort();
  verdict.splitWebhookIds = [...ids].filter(([, set]) => set.size !== 1).map(([k, set]) => `${k}: ${[...set].join(', ')}`);
  return verdict;
}

/** The checker's findings as lines (at most a few of each kind); none when the run kept every promise. */
export function violations(v: Verdict): string[] {
  const lines: string[] = [];
  const add = (what: string, list: string[]) => {
    if (list.length > 0) lines.push(`${list.length} ${what}: ${list.slice(0, 5).join(' | ')}${list.length > 5 ? ' | …' : ''}`);
  };
  add('acknowledged mails lost', v.lost);
  add('acknowledged mails stored twice', v.duplicated);
  add('mails shown to a client and gone since', v.vanished);
  add('webhooks for a mail that does not exist', v.phantomWebhooks);
  add('acknowledged mails never notified', v.missingWebhooks);
  add('notifications under more than one webhook-id', v.splitWebhookIds);
  add('parked long-polls answered with an error', v.pollErrors);
  add('valid mails refused for good', v.refused);
  add('inboxes unreadable after the fault healed', v.unreadable);
  return lines;
}
