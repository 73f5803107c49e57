// What every isolation attack test asserts besides the attack's own answer: a second account's
// parked long-polls stay parked through the attack and still answer the next mail, its reads work,
// and the service process is alive with its memory bounded.
import type { ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { sendMail } from './mail.js';
import type { Service } from './service.js';
import { parked } from './wait.js';

type Json = Record<string, any>;
/** The victim's long-polls wait as long as the API allows. */
const POLL_S = 60;

export interface Victim {
  key: string;
  inboxes: string[];
  /** Asserts the long-polls are untouched, reads answer, and each poll answers its next mail. */
  assertUnaffected(t: ExecutionContext): Promise<void>;
}

/** A second account with `n` inboxes, each with a 60 s long-poll parked on it. */
export async function parkVictim(svc: Service, n = 4): Promise<Victim> {
  const before = await svc.parkedWaiters();
  const { api_key: key } = await svc.createAccount('growth');
  const inboxes: string[] = [];
  for (let i = 0; i < n; i++) inboxes.push(((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address);
  const started = Date.now();
  const ended = new Map<number, { status: number; body: Json; afterMs: number }>();
  const polls = inboxes.map((inbox, i) =>
    svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/wait?timeout=${POLL_S}`).then(async (res) => {
      const outcome = { status: res.status, body: (await res.json()) as Json, afterMs: Date.now() - started };
      ended.set(i, outcome);
      return outcome;
    }),
  );
  await parked(svc, before + n);
  return {
    key,
    inboxes,
    async assertUnaffected(t) {
      // On a slow machine an attack may outlast the polls' own timeout: ending then, timed out, is
      // their documented answer. Ending any other way, or earlier, is the failure this guards.
      for (const [i, end] of ended) {
        t.is(end.status, 200, `long-poll ${i} ended with ${end.status} during the attack`);
        t.true(end.body.timed_out === true && end.afterMs >= POLL_S * 1000 - 1000, `long-poll ${i} ended early: ${JSON.stringify(end.body)}`);
      }
      const list = await svc.api(key, 'GET', '/v1/inboxes');
      t.is(list.status, 200, 'the second account reads');
      t.is(((await list.json()) as Json).count, n);
      const stillParked = inboxes.map((_, i) => i).filter((i) => !ended.has(i));
      for (const i of stillParked) await sendMail(svc.smtpPort, { to: inboxes[i]!, subject: `after-${i}`, text: 'still here' });
      for (const i of stillParked) {
        const { status, body, afterMs } = await polls[i]!;
        t.is(status, 200);
        // A poll may reach its own timeout while the mail is on its way; never another answer.
        if (body.timed_out === false) t.is(body.data?.subject, `after-${i}`);
        else t.true(afterMs >= POLL_S * 1000 - 1000, `long-poll ${i} timed out early`);
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

/** A sample's value in Prometheus text, summed over its label sets; 0 when absent. */
export function metricValue(text: string, name: string, labels = ''): number {
  let sum = 0;
  const re = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm');
  for (const m of text.matchAll(re)) if (!labels || (m[1] ?? '').includes(labels)) sum += Number(m[2]);
  return sum;
}

/** Resident memory of every process of the service, in bytes. */
export function serviceRss(svc: Service): number {
  return svc.processes.filter((p) => p.pid !== undefined && p.exitCode === null).reduce((n, p) => n + rssBytes(p.pid!), 0);
}
