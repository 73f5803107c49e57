// `npm run bench:reshard [-- --quick] [-- --messages N] [-- --replicas N]`: the cluster's figures beside the embedded
// ones, on loopback, in one run on one machine.
//   1. embedded `mailcue serve`: smtp-ingest, rest-get-latest, mcp-get-latest (the bench scenarios);
//   2. etcd + 3 `mailcue shard` + 1 `mailcue front`: the same three scenarios through the cluster;
//   3. N messages (default 100,000) stored through the shards' API (`inbox.deliver`, routed by the
//      slot map as the front routes it), then a 4th shard joins and the controller rebalances
//      3 → 4. Reported: the rebalance time, per-slot move time, bytes and bytes/s, and each slot's
//      write pause (freeze → release, the shards' "slot moved" lines), plus what a writer saw:
//      writes aimed at the slot being moved, their latency and errors. Every message is counted
//      again at the end.
// Every process is stopped by PID, every loop is capped in count and time. Writes
// bench/results/reshard.json.
import os from 'node:os';
import path from 'node:path';
import { Cluster } from '../../src/rpc/cluster.js';
import { SlotPlacement } from '../../src/rpc/placement.js';
import { SlotView } from '../../src/cluster/slot-view.js';
import { connectEtcd } from '../../src/cluster/etcd.js';
import { readClusterStatus } from '../../src/cluster/status.js';
import { readMoves } from '../../src/cluster/moves.js';
import { slotOf } from '../../src/cluster/slots.js';
import { parseMail } from '../../src/mail/parse-mail.js';
import { startEtcd } from '../lib/etcd.js';
import { Mailcue } from '../lib/mailcue.js';
import { smallMail } from '../lib/mails.js';
import { jsonRequest, mapLimit } from '../lib/net-util.js';
import { benchSession, CORES, cpuSeconds, git, machineBusySeconds, runTool, writeReport, type Child } from '../lib/proc.js';
import { runScenario } from '../lib/run-scenario.js';
import type { Context, Scenario, ScenarioResult } from '../lib/scenario.js';
import { percentiles, round, Samples } from '../lib/stats.js';
import { mcpGetLatest, restGetLatest } from '../scenarios/get-latest.js';
import { smtpIngest } from '../scenarios/smtp-ingest.js';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const MESSAGES = Number(argv[argv.indexOf('--messages') + 1] ?? NaN) || (QUICK ? 20_000 : 100_000);
const INBOXES = QUICK ? 200 : 1000;
/** Copies of every slot (MAILCUE_REPLICAS; 2 is a cluster's default, with every write acknowledged by all). */
const REPLICAS = Number(argv[argv.indexOf('--replicas') + 1] ?? NaN) || 2;
const SCENARIOS: Scenario[] = [smtpIngest, restGetLatest, mcpGetLatest];
/** Caps: storing, the rebalance, each wait for a balanced map. */
const STORE_LIMIT_MS = 240_000;
const REBALANCE_LIMIT_MS = 600_000;
const STORE_IN_FLIGHT = 32;
/** The writer aimed at moving slots: this many loops, one write each every PROBE_EVERY_MS at most. */
const PROBE_LOOPS = 8;
const PROBE_EVERY_MS = 20;
const PROBE_MAX_WRITES = 100_000;
const RESULTS = path.resolve('bench/results/reshard.json');

const { started, log, tmp } = benchSession('reshard');

type Etcd = ReturnType<typeof connectEtcd>;

/** A shard's "slot moved" line: `bytes` is the snapshot the new owner received. */
interface Moved { slot: number; bytes: number; total_ms: number; paused_ms: number; pause_parts_ms?: Record<string, number>; from: string; to: string }

/** The raw source and the parsed form of one small OTP mail: every stored message is a copy of it. */
async function template(): Promise<{ raw: Buffer; parsed: Awaited<ReturnType<typeof parseMail>> }> {
  const data = smallMail('r0@mailcue.test', 'stored', 0).data;
  const raw = data.subarray(0, data.length - 3); // without the ".\r\n" that ends DATA
  return { raw, parsed: await parseMail(raw) };
}

async function scenarios(mc: Mailcue, label: string): Promise<{ rows: ScenarioResult[]; key: string; inboxes: string[] }> {
  const key = await mc.createAccount();
  const inboxes = await mc.createInboxes(key, 'r', INBOXES);
  const ctx: Context = { quick: QUICK, mailcue: mc, key, readInboxes: inboxes, tls: null, tmp, results: new Map(), log: (m) => log(`${label}: ${m}`) };
  const rows: ScenarioResult[] = [];
  for (const s of SCENARIOS) rows.push(await runScenario(s, ctx));
  return { rows, key, inboxes };
}

/** Waits until exactly `n` members hold the slots, each within ±5 % of its share, with no move left. */
async function balanced(etcd: Etcd, n: number, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  const share = 1024 / n;
  for (;;) {
    const s = await readClusterStatus(etcd.ns, REPLICAS);
    if (s.members.length === n && s.moves.length === 0 && s.members.every((m) => m.state === 'active' && Math.abs(m.primaries - share) <= share * 0.05)) return;
    if (Date.now() > end) throw new Error(`not balanced over ${n} members after ${timeoutMs} ms: ${JSON.stringify(s.members.map((m) => [m.id, m.primaries]))}, ${s.moves.length} moves left`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Collects the "slot moved" lines every shard logs (the controller's shard logs its moves). */
function watchMoves(child: Child, into: Moved[]): void {
  let rest = '';
  child.proc.stdout?.on('data', (b: Buffer) => {
    const lines = (rest + b.toString('utf8')).split('\n');
    rest = lines.pop()!;
    for (const line of lines) if (line.includes('"slot moved"')) into.push(JSON.parse(line) as Moved);
  });
}

async function store(cluster: Cluster, inboxes: string[], total: number) {
  const { raw, parsed } = await template();
  const end = Date.now() + STORE_LIMIT_MS;
  let stored = 0;
  const t0 = performance.now();
  await mapLimit(total, STORE_IN_FLIGHT, async (i) => {
    if (Date.now() > end) return;
    const message = { ...parsed, subject: `Your code stored-${i}` };
    await cluster.call({ type: 'inbox.deliver', addresses: [inboxes[i % inboxes.length]!], message, raw }, { timeoutMs: 30_000 });
    stored++;
  });
  const seconds = (performance.now() - t0) / 1000;
  return { stored, seconds: round(seconds, 1), per_s: Math.round(stored / seconds), raw_bytes: raw.length };
}

/**
 * Writes aimed at the slot the controller is moving (read from etcd every 100 ms), else at any
 * inbox whose slot is still to move: their latency is what a client sees of a slot's pause.
 */
function probe(cluster: Cluster, etcd: Etcd, inboxes: string[]) {
  const bySlot = new Map<number, string>();
  for (const a of inboxes) bySlot.set(slotOf(a), a);
  const mail = template();
  let running = true;
  let current: string | null = null;
  let pending: string[] = [];
  const samples = new Samples();
  const errors: string[] = [];
  let worst = { ms: 0, slot: -1 };
  let ok = 0;
  const poller = (async () => {
    while (running) {
      const moves = await readMoves(etcd.ns).catch(() => []);
      const moving = moves.find((m) => m.state === 'copying' || m.state === 'switching');
      current = moving ? bySlot.get(moving.slot) ?? null : null;
      const left = moves.filter((m) => m.state === 'pending' || m.state === 'copying').map((m) => bySlot.get(m.slot)).filter((a): a is string => !!a);
      if (left.length > 0) pending = left;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const loops = Array.from({ length: PROBE_LOOPS }, async (_, k) => {
    const { raw, parsed } = await mail;
    let i = k;
    while (running && ok + errors.length < PROBE_MAX_WRITES) {
      const to = current ?? (pending.length > 0 ? pending[i % pending.length]! : inboxes[i % inboxes.length]!);
      i += PROBE_LOOPS;
      const t0 = performance.now();
      try {
        // With its ingest digest, as SMTP delivers: a delivery the cluster re-sends after a move is not stored twice.
        await cluster.call({ type: 'inbox.deliver', addresses: [to], message: { ...parsed, subject: 'probe' }, raw, digest: `probe-${k}-${i}` }, { timeoutMs: 30_000 });
        const ms = performance.now() - t0;
        samples.add(ms);
        ok++;
        if (ms > worst.ms) worst = { ms: round(ms, 1), slot: slotOf(to) };
      } catch (err) {
        errors.push(`${to}: ${(err as Error).message}`);
      }
      const wait = PROBE_EVERY_MS - (performance.now() - t0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all([poller, ...loops]);
      return { writes: ok, errors: errors.length, first_errors: errors.slice(0, 5), latency_ms: percentiles(samples.values()), slowest: worst };
    },
  };
}

function dist(values: number[]) {
  const p = percentiles(values);
  return { p50: p.p50_ms, p99: p.p99_ms, max: p.max_ms };
}

/** Every inbox's message_count through the front, summed. */
async function countMessages(mc: Mailcue, key: string): Promise<number> {
  const r = await jsonRequest('GET', `${mc.base}/v1/inboxes`, { token: key, timeoutMs: 60_000 });
  if (r.status !== 200) throw new Error(`GET /v1/inboxes → ${r.status}`);
  return (r.body.data as { message_count: number }[]).reduce((n, i) => n + i.message_count, 0);
}

function brief(rows: ScenarioResult[]) {
  return Object.fromEntries(rows.map((r) => [r.name, r.error ? { error: r.error } : {
    ops_per_s: round(r.ops_per_s, 0), p50_ms: r.p50_ms, p99_ms: r.p99_ms, server_cpu_cores: r.server_cpu_cores, foreign_cpu_cores: r.foreign_cpu_cores, peak_rss_mb: r.peak_rss_mb,
  }]));
}

async function main(): Promise<void> {
  const report: Record<string, unknown> = {
    commit: git('rev-parse', 'HEAD'), dirty: git('status', '--porcelain', '--', 'src', 'proto', 'package.json').length > 0, node: process.version,
    cpu: `${os.cpus()[0]?.model ?? 'unknown'} × ${CORES}`, date: new Date().toISOString(), quick: QUICK, messages: MESSAGES, inboxes: INBOXES, replicas: REPLICAS,
    load_before: os.loadavg().map((l) => round(l, 2)),
  };
  const etcdServer = await startEtcd(path.join(tmp, 'etcd'));
  log(`etcd at ${etcdServer.endpoint}`);

  log('embedded: starting mailcue serve');
  const embedded = await Mailcue.start();
  try {
    report.embedded = brief((await scenarios(embedded, 'embedded')).rows);
  } finally {
    await embedded.stop();
  }

  log('cluster: etcd + 3 shards + 1 front');
  const cl = await Mailcue.start({ etcd: etcdServer.endpoint, shards: 3, fronts: 1, frontPoolThreads: CORES, env: { MAILCUE_REPLICAS: String(REPLICAS) } });
  const moved: Moved[] = [];
  for (const p of cl.processes) if (p.name.includes('shard')) watchMoves(p, moved);
  const etcd = connectEtcd({ endpoints: [etcdServer.endpoint], prefix: cl.etcdPrefix! });
  const view = await SlotView.start(etcd.ns);
  const cluster = new Cluster(new SlotPlacement(view));
  try {
    await balanced(etcd, 3, 120_000);
    const { rows, key, inboxes } = await scenarios(cl, 'cluster');
    report.cluster = { layout: cl.layout, ...brief(rows) };
    const before = await countMessages(cl, key);

    log(`storing ${MESSAGES} messages through the shards' API`);
    const stored = await store(cluster, inboxes, MESSAGES);
    log(`stored ${stored.stored} in ${stored.seconds} s (${stored.per_s}/s)`);
    report.store = stored;

    log('a 4th shard joins; rebalancing 3 → 4');
    moved.length = 0;
    const writer = probe(cluster, etcd, inboxes);
    const cpu0 = cl.pids.reduce((s, p) => s + cpuSeconds(p.pid), 0);
    const busy0 = machineBusySeconds();
    const t0 = performance.now();
    watchMoves(await cl.addShard(3), moved);
    let rebalanceError: string | null = null;
    await balanced(etcd, 4, REBALANCE_LIMIT_MS).catch((err: Error) => (rebalanceError = err.message));
    const seconds = (performance.now() - t0) / 1000;
    const serverCpu = cl.pids.reduce((s, p) => s + cpuSeconds(p.pid), 0) - cpu0;
    const machineCpu = machineBusySeconds() - busy0;
    const probed = await writer.stop();
    const bytes = moved.reduce((n, m) => n + m.bytes, 0);
    const after = await countMessages(cl, key);
    report.rebalance = {
      error: rebalanceError, seconds: round(seconds, 1), slots_moved: moved.length,
      bytes_moved: bytes, bytes_per_s: Math.round(bytes / seconds),
      move_ms: dist(moved.map((m) => m.total_ms)), move_bytes: dist(moved.map((m) => m.bytes)),
      move_bytes_per_s: dist(moved.map((m) => (m.total_ms > 0 ? Math.round((m.bytes / m.total_ms) * 1000) : 0))),
      write_pause_ms: dist(moved.map((m) => m.paused_ms)),
      // Where the pause goes: p50 and p99 of each part (freeze call, last entries, map switch, release call).
      write_pause_parts_ms: Object.fromEntries(['freeze', 'apply', 'switch', 'release'].map((k) => [k, dist(moved.map((m) => m.pause_parts_ms?.[k] ?? 0))])),
      slowest_move: moved.reduce<Moved | null>((a, m) => (!a || m.total_ms > a.total_ms ? m : a), null),
      longest_pause: moved.reduce<Moved | null>((a, m) => (!a || m.paused_ms > a.paused_ms ? m : a), null),
      writer: probed, server_cpu_cores: round(serverCpu / seconds, 2), machine_cpu_cores: round(machineCpu / seconds, 2),
      messages_before: before + stored.stored, messages_after: after, messages_written_during: probed.writes,
      // A write answered with an error may or may not be stored (as an SMTP sender's 451): only
      // acknowledged writes must be there, and nothing may be there twice.
      lost: Math.max(0, before + stored.stored + probed.writes - after),
      doubled: Math.max(0, after - (before + stored.stored + probed.writes + probed.errors)),
    };
  } finally {
    cluster.placement.close();
    await view.close();
    etcd.close();
    await cl.stop();
  }
  writeReport(RESULTS, report, started, log);
}

runTool('reshard', tmp, main);
