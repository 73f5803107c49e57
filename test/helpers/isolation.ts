// What every isolation (attack) test checks after its attack: a second account's parked long-polls
// and reads were not disturbed, the processes are alive, and their resident memory stayed bounded.
import type { ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { sendMail } from './mail.js';
import type { Service } from './service.js';

type Json = Record<string, any>;

/** The Prometheus text of one front (its ops listener where the helper starts one). */
export async function metricsText(svc: Service, front = 0): Promise<string> {
  const ops = (svc as Service & { opsUrls?: string[] }).opsUrls;
  return (await fetch(`${ops?.[front] ?? svc.frontUrls[front]}/metrics`)).text();
}

/** A sample's value, summed over its label sets; 0 when absent. */
export function metricValue(text: string, name: string, labels = ''): number {
  let sum = 0;
  const re = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm');
  for (const m of text.matchAll(re)) if (!labels || (m[1] ?? '').includes(labels)) sum += Number(m[2]);
  return sum;
}

/** Polls until `check` holds (bounded); for pushed or background effects, never a fixed sleep. */
export async function eventually<T>(probe: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let value = await probe();
  while (!check(value) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    value = await probe();
  }
  return value;
}

/** Resident set size of every process of the service, in bytes. */
export function rssBytes(svc: Service): number {
  let total = 0;
  for (const p of svc.processes) {
    if (p.pid === undefined || p.exitCode !== null) continue;
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'));
    if (m) total += Number(m[1]) * 1024;
  }
  return total;
}

export interface Bystander {
  key: string;
  inbox: string;
  /** Ends the parked polls by delivering mail, and asserts every one answered with it. */
  check(t: ExecutionContext): Promise<void>;
}

/**
 * A second account with `polls` long-polls parked on its inbox (confirmed by the parked-waiters
 * gauge), to be answered after the attack.
 */
export async function parkBystander(svc: Service, polls = 3): Promise<Bystander> {
  const account = await svc.createAccount('free');
  const key = account.api_key;
  const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address as string;
  const before = metricValue(await metricsText(svc), 'mailcue_parked_waiters');
  const parked = Array.from({ length: polls }, () =>
    svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/wait?timeout=60`).then(async (res) => ({ status: res.status, body: (await res.json()) as Json })),
  );
  await eventually(async () => metricValue(await metricsText(svc), 'mailcue_parked_waiters'), (n) => n >= before + polls);
  return {
    key,
    inbox,
    async check(t) {
      for (const p of svc.processes) t.is(p.exitCode, null, 'every process is alive');
      const sent = await sendMail(svc.smtpPort, { to: inbox, subject: 'bystander', text: 'still here' });
      t.regex(sent.response, /^250/);
      for (const answer of await Promise.all(parked)) {
        t.is(answer.status, 200, 'a parked long-poll of the other account answered');
        t.is(answer.body.data?.subject, 'bystander');
      }
      const list = await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages`);
      t.is(list.status, 200);
      t.is(((await list.json()) as Json).count, 1);
    },
  };
}
