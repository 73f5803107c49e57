// Small request runs for the scale scenarios: a fixed number of REST requests at a low, fixed
// concurrency, timed one by one, with the server's CPU read around them, so a figure is the CPU
// Mailcue spends per request at one data size (not a throughput, which the machine's load moves).
import { Agent, request } from 'undici';
import type { Mailcue } from './mailcue.js';
import { cores, foreignCores, measure } from './scenario.js';
import { percentiles, type Percentiles } from './stats.js';
import { SmtpConnection } from './smtp-client.js';
import type { Mail } from './mails.js';

export interface ProbeResult extends Percentiles {
  requests: number;
  /** Server CPU per request, µs (all Mailcue processes' utime+stime over the run / requests). */
  cpu_us: number;
  server_cpu_cores: number;
  foreign_cpu_cores: number;
  bytes: number;
}

const agent = new Agent({ connections: 8, keepAliveTimeout: 30_000 });

/** One GET; throws unless it answers `expect` (200 by default). Resolves with the body's length. */
export async function get(base: string, path: string, key: string, expect = 200): Promise<number> {
  const res = await request(`${base}${path}`, { method: 'GET', headers: { authorization: `Bearer ${key}` }, dispatcher: agent });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== expect) throw new Error(`GET ${path} → ${res.statusCode} ${body.toString('utf8', 0, 300)}`);
  return body.length;
}

/** Server CPU an idle Mailcue uses (timers, trims, GC): subtracted from a probe's, which runs at a low rate. */
async function idleCores(mc: Mailcue, ms: number): Promise<number> {
  const m = await measure(() => mc.pids, () => new Promise((resolve) => setTimeout(resolve, ms)));
  return m.wall_s > 0 ? m.server_cpu_s / m.wall_s : 0;
}

/**
 * Waits (at most `timeoutMs`) until a second passes in which the server uses under `cores`: after
 * a restart on seeded data its background work (trimming the seed's oplog, compiling) runs for a
 * while, and a probe of a few hundred requests beside it measures that work, not the requests.
 * Resolves with the last second's figure.
 */
export async function quiet(mc: Mailcue, cores = 0.05, timeoutMs = 60_000): Promise<number> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const used = await idleCores(mc, 1000);
    if (used < cores || performance.now() > until) return used;
  }
}

/**
 * `count` GETs of `paths` round-robin, `concurrency` at a time; server CPU measured around them,
 * less what the idle server used over as long (measured for `idleMs` just before).
 */
export async function probe(mc: Mailcue, key: string, paths: string[], count: number, concurrency = 4, idleMs = 1000): Promise<ProbeResult> {
  const idle = idleMs > 0 ? await idleCores(mc, idleMs) : 0;
  const latencies: number[] = [];
  let bytes = 0;
  let next = 0;
  const m = await measure(() => mc.pids, async () => {
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const path = paths[next++ % paths.length]!;
        const t0 = performance.now();
        bytes += await get(mc.base, path, key);
        latencies.push(performance.now() - t0);
      }
    }));
  });
  return {
    requests: count, ...percentiles(latencies), cpu_us: Math.max(0, Math.round(((m.server_cpu_s - idle * m.wall_s) / count) * 1e6)), server_cpu_cores: cores(m.server_cpu_s, m.wall_s),
    foreign_cpu_cores: foreignCores(m), bytes: Math.round(bytes / count),
  };
}

/** Sends mails one at a time over one connection; each must be answered 250. */
export async function sendMails(port: number, mails: Mail[]): Promise<void> {
  const conn = await SmtpConnection.open('127.0.0.1', port);
  try {
    for (const mail of mails) {
      const reply = await conn.send(mail);
      if (reply.code !== 250) throw new Error(`SMTP: ${reply.code} ${reply.text}`);
    }
  } finally {
    conn.close();
  }
}


