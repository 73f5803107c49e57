// `npm run bench -- chaos`: what replication costs and what failover does, measured on loopback.
//  1. Write latency: the smtp-ingest generator over 4 connections through an etcd cluster of 3
//     shards + 1 front, with MAILCUE_REPLICAS=1 and then 2 (REPLICATION_ACK=all).
//  2. Five kills (replicas 2, the default 5 s lease): tagged mail flows over 4 connections (one in
//     ten to two inboxes on different shards), a random shard is killed with SIGKILL, the time to
//     the first 250 for a message to its slots is the failover time; it comes back (with its data
//     on odd rounds, empty on even ones) and the next round waits until every copy is made.
//     At the end every acknowledged tag is looked up: lost (must be 0) and duplicates.
// Bounded: each phase has a cap; every process is stopped by PID. Writes bench/results/chaos.json.
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { connectEtcd } from '../../src/cluster/etcd.js';
import { slotOf } from '../../src/cluster/slots.js';
import { readClusterStatus, type ClusterStatus } from '../../src/cluster/status.js';
import { startEtcd } from '../lib/etcd.js';
import { Mailcue } from '../lib/mailcue.js';
import { jsonRequest } from '../lib/net-util.js';
import { benchSession, CORES, git, runTool, waitFor, writeReport } from '../lib/proc.js';
import { runSmtpLoad } from '../lib/smtp-client.js';
import { percentiles, round } from '../lib/stats.js';

const QUICK = process.argv.includes('--quick');
const SHARDS = 3;
const INBOXES = 30;
const LATENCY_MESSAGES = QUICK ? 300 : 1500;
const CONNECTIONS = 4;
const KILLS = QUICK ? 2 : 5;
/** Load before each kill, and the caps of each wait. */
const LOAD_BEFORE_KILL_MS = 3000;
const FAILOVER_LIMIT_MS = 30_000;
const REJOIN_LIMIT_MS = 180_000;
const RESULTS = path.resolve('bench/results/chaos.json');

const { started, log, tmp } = benchSession('chaos');

function rawMail(tag: string, to: string[]): string {
  return [`From: Bench <bench@example.com>`, `To: ${to.join(', ')}`, `Subject: tag ${tag}`, `Message-ID: <${tag}@chaos.bench>`,
    'Date: Mon, 23 Nov 2026 12:00:00 +0000', 'Content-Type: text/plain; charset=utf-8', '', `Your code is 482913 (${tag})`, ''].join('\r\n');
}

/** One message until acknowledged: a 4xx, a refused RCPT or a lost connection is retried with the same bytes. */
async function deliver(port: number, tag: string, to: string[], stopBy: number): Promise<boolean> {
  const raw = rawMail(tag, to);
  while (Date.now() < stopBy) {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    try {
      const info = await transport.sendMail({ envelope: { from: 'bench@example.com', to }, raw });
      const refused = (info as { rejectedErrors?: { responseCode?: number }[] }).rejectedErrors ?? [];
      if (refused.length === 0) return true;
      if (refused.some((e) => (e.responseCode ?? 0) >= 500)) return false;
    } catch (err) {
      if (((err as { responseCode?: number }).responseCode ?? 0) >= 500) return false;
    } finally {
      transport.close();
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

type Etcd = ReturnType<typeof connectEtcd>;

/** Every member live, active (no copy being made), no move left. */
async function settled(etcd: Etcd, n: number): Promise<ClusterStatus> {
  return waitFor(`${n} members settled`, async () => {
    const s = await readClusterStatus(etcd.ns, 2);
    return s.members.length === n && s.moves.length === 0 && s.members.every((m) => m.state === 'active') && s.map.every((e) => e.primary !== null) && s;
  }, REJOIN_LIMIT_MS, 250);
}

async function cluster(replicas: number, etcdEndpoint: string) {
  const mc = await Mailcue.start({ etcd: etcdEndpoint, shards: SHARDS, fronts: 1, frontPoolThreads: CORES, env: { MAILCUE_REPLICAS: String(replicas), MAILCUE_LOG_LEVEL: 'warn' } });
  const etcd = connectEtcd({ endpoints: [etcdEndpoint], prefix: mc.etcdPrefix! });
  await settled(etcd, SHARDS);
  const key = await mc.createAccount();
  const inboxes = await mc.createInboxes(key, 'c', INBOXES);
  return { mc, etcd, key, inboxes };
}

/** The smtp-ingest generator (raw sockets, PIPELINING) over 4 connections: mails/s and the time from DATA's end to the 250. */
async function writeLatency(replicas: number, etcdEndpoint: string) {
  log(`write latency, replicas ${replicas}`);
  const { mc, etcd, inboxes } = await cluster(replicas, etcdEndpoint);
  try {
    const r = await runSmtpLoad({ host: '127.0.0.1', port: mc.endpoints[0]!.smtpPort, connections: CONNECTIONS, total: LATENCY_MESSAGES, kind: 'small', recipients: inboxes, tag: `lat${replicas}`, timeLimitMs: 120_000 });
    return { replicas, messages: r.accepted, refused: r.refused, per_s: Math.round(r.ops_per_s), p50_ms: r.latency.p50_ms, p99_ms: r.latency.p99_ms, max_ms: r.latency.max_ms };
  } finally {
    etcd.close();
    await mc.stop();
  }
}

async function kills(etcdEndpoint: string) {
  log(`${KILLS} kills, replicas 2`);
  const { mc, etcd, key, inboxes } = await cluster(2, etcdEndpoint);
  const smtp = mc.endpoints[0]!.smtpPort;
  const acked = new Map<string, { to: string[]; sent: number; at: number }>();
  let running = true;
  let failed = 0;
  let seq = 0;
  let status = await readClusterStatus(etcd.ns, 2);
  const primaryOf = (inbox: string) => status.map[slotOf(inbox)]!.primary;
  const senders = Array.from({ length: CONNECTIONS }, async (_, c) => {
    while (running) {
      const i = seq++;
      const tag = `k${c}-${i}`;
      const a = inboxes[i % inboxes.length]!;
      const b = inboxes.find((x) => primaryOf(x) !== primaryOf(a));
      const to = i % 10 === 9 && b ? [a, b] : [a];
      const sent = Date.now();
      if (await deliver(smtp, tag, to, Date.now() + FAILOVER_LIMIT_MS * 2)) acked.set(tag, { to, sent, at: Date.now() });
      else failed++;
    }
  });
  const rounds: { victim: string; with_data: boolean; failover_ms: number | null; rejoin_s: number }[] = [];
  try {
    for (let r = 0; r < KILLS; r++) {
      await new Promise((r) => setTimeout(r, LOAD_BEFORE_KILL_MS));
      status = await readClusterStatus(etcd.ns, 2);
      const id = Math.floor(Math.random() * SHARDS);
      const victim = `shard-${id}`;
      const child = mc.processes.find((p) => p.name === `mailcue-shard-${id}` && !p.exited)!;
      const killedAt = Date.now();
      process.kill(child.pid, 'SIGKILL');
      log(`round ${r + 1}: killed ${victim}`);
      // The first 250 for a message, begun after the kill, to an inbox the victim was primary of.
      let failoverMs: number | null = null;
      await waitFor('a write to the dead shard\'s slots', () => {
        const first = [...acked.values()].filter((a) => a.sent > killedAt && a.to.some((x) => primaryOf(x) === victim)).map((a) => a.at);
        if (first.length > 0) failoverMs = Math.min(...first) - killedAt;
        return failoverMs !== null;
      }, FAILOVER_LIMIT_MS, 250).catch(() => undefined);
      log(`round ${r + 1}: writes resumed after ${failoverMs} ms`);
      const withData = r % 2 === 0;
      if (!withData) rmSync(path.join(mc.dir, 'data', victim), { recursive: true, force: true });
      await waitFor('the dead member to leave', async () => (await readClusterStatus(etcd.ns, 2)).members.length === SHARDS - 1, FAILOVER_LIMIT_MS, 250);
      const back = Date.now();
      await mc.addShard(id);
      await settled(etcd, SHARDS);
      rounds.push({ victim, with_data: withData, failover_ms: failoverMs, rejoin_s: round((Date.now() - back) / 1000, 1) });
    }
  } finally {
    running = false;
    await Promise.all(senders);
  }
  log(`checking ${acked.size} acknowledged tags`);
  const counts = new Map<string, number>();
  for (const inbox of inboxes) {
    let before: string | null = null;
    for (let page = 0; page < 1000; page++) {
      const r = await jsonRequest('GET', `${mc.endpoints[0]!.base}/v1/inboxes/${inbox}/messages?limit=100${before ? `&before=${before}` : ''}`, { token: key, timeoutMs: 30_000 });
      if (r.status !== 200) throw new Error(`list ${inbox}: ${r.status}`);
      const data = r.body.data as { id: string; subject: string }[];
      for (const m of data) counts.set(`${inbox} ${m.subject}`, (counts.get(`${inbox} ${m.subject}`) ?? 0) + 1);
      if (data.length < 100) break;
      before = data.at(-1)!.id;
    }
  }
  let lost = 0;
  let duplicates = 0;
  for (const [tag, a] of acked) {
    for (const inbox of a.to) {
      const n = counts.get(`${inbox} tag ${tag}`) ?? 0;
      if (n === 0) lost++;
      if (n > 1) duplicates += n - 1;
    }
  }
  etcd.close();
  await mc.stop();
  const times = rounds.map((r) => r.failover_ms).filter((m): m is number => m !== null);
  const p = percentiles(times);
  return { acknowledged: acked.size, gave_up: failed, lost, duplicates, failover_ms: { p50: p.p50_ms, max: p.max_ms }, rounds };
}

async function main(): Promise<void> {
  const report: Record<string, unknown> = {
    commit: git('rev-parse', 'HEAD'), node: process.version, cpu: `${os.cpus()[0]?.model ?? 'unknown'} × ${CORES}`,
    date: new Date().toISOString(), quick: QUICK, load_before: os.loadavg().map((l) => round(l, 2)),
  };
  const etcd = await startEtcd(path.join(tmp, 'etcd'));
  report.write_latency = [await writeLatency(1, etcd.endpoint), await writeLatency(2, etcd.endpoint)];
  report.kills = await kills(etcd.endpoint);
  writeReport(RESULTS, report, started, log);
}

runTool('chaos', tmp, main);
