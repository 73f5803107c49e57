// What every isolation attack test asserts besides the attack's own answer: a second account's
// parked long-polls stay parked through the attack and still answer the next mail, its reads work,
// and the service process is alive with its memory bounded.
import type { ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { sendMail } from './mail.js';
import type { Service } from './service.js';

type Json = Record<string, any>;

export interface Victim {
  key: string;
  inboxes: string[];
  /** Asserts the long-polls are untouched, reads answer, and each poll answers its next mail. */
  assertUnaffected(t: ExecutionContext): Promise<void>;
}

/** Polls `check` until it holds (bounded); the value it last returned. */
export async function until<T>(check: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let value = await check();
  while (!ok(value) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    value = await check();
  }
  return value;
}

/** A second account with `n` inboxes, each with a 60 s long-poll parked on it. */
export async function parkVictim(svc: Service, n = 4): Promise<Victim> {
  const before = await svc.parkedWaiters();
  const { api_key: key } = await svc.createAccount('growth');
  const inboxes: string[] = [];
  for (let i = 0; i < n; i++) inboxes.push(((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address);
  const settled = new Set<number>();
  const polls = inboxes.map((inbox, i) =>
    svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/wait?timeout=60`).then(async (res) => {
      settled.add(i);
      return { status: res.status, body: (await res.json()) as Json };
    }),
  );
  const parked = await until(() => svc.parkedWaiters(), (v) => v >= before + n);
  if (parked < before + n) throw new Error(`victim long-polls did not park (${parked})`);
  return {
    key,
    inboxes,
    async assertUnaffected(t) {
      t.is(settled.size, 0, 'no parked long-poll of the second account ended during the attack');
      const list = await svc.api(key, 'GET', '/v1/inboxes');
      t.is(list.status, 200, 'the second account reads');
      t.is(((await list.json()) as Json).count, n);
      for (const [i, inbox] of inboxes.entries()) await sendMail(svc.smtpPort, { to: inbox, subject: `after-${i}`, text: 'still here' });
      for (const [i, poll] of polls.entries()) {
        const { status, body } = await poll;
        t.is(status, 200);
        t.is(body.timed_out, false);
        t.is(body.data?.subject, `after-${i}`);
      }
    },
  };
}

/** Resident memory of a process, in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** The service answers /livez and its process is still running. */
export async function assertAlive(t: ExecutionContext, svc: Service): Promise<void> {
  for (const p of svc.processes) t.is(p.exitCode, null, 'the process is still running');
  t.is((await fetch(`${svc.baseUrl}/livez`)).status, 200);
}

export const MiB = 1024 * 1024;
