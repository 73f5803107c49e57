// The faults of DESIGN.md §8, each injected in its own run on a fresh cluster (etcd, 3 shards,
// 2 fronts, 3 copies of every slot, minimum 2 in sync, a lease of 3 s) under the steady tagged load
// of fault-load.ts, healed, and then judged by the one checker of fault-checker.ts. Used by
// `npm run test:faults` (test/faults/run.ts, every fault) and by test/e2e/cluster-faults.test.ts
// (three of them in `npm test`). Every wait is bounded; every process is stopped by PID.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { slotOf } from '../../src/cluster/slots.js';
import type { ClusterStatus } from '../../src/cluster/status.js';
import type { EtcdServer } from './etcd.js';
import { FaultCluster, type ShardProcess } from './fault-cluster.js';
import { check, violations, type Verdict } from './fault-checker.js';
import { Workload } from './fault-load.js';
import { startReceiver, type Receiver } from './https-receiver.js';
import { until } from './wait.js';

export const LEASE_TTL_S = 3;
const SHARDS = 3;
const FRONTS = 2;
/** Acknowledged mails before the fault, and after the heal, so both sides of it carry load. */
const ACKS_BEFORE = 40;
const ACKS_AFTER = 40;
/** How long a fault waits for the cluster to react (a member to vanish, writes to resume). */
const REACT_MS = 30_000;

export interface FaultContext {
  cluster: FaultCluster;
  load: Workload;
  etcd: EtcdServer;
  /** The map when the load started. */
  before: ClusterStatus;
  victim: ShardProcess;
  log(msg: string): void;
}

export interface FaultDefinition {
  name: string;
  /** One line for the results table. */
  title: string;
  /** Which shard the fault strikes, from the map when the load starts (default: the first shard's primary of the first inbox). */
  victim?(before: ClusterStatus, load: Workload): string;
  /** The inboxes the senders write to (default all). */
  targets?(before: ClusterStatus, load: Workload, victim: string): string[];
  /** Injects the fault and heals it: returns once every process is back and every link forwards. */
  inject(ctx: FaultContext): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (bounded) until the member's key is gone from etcd: its lease expired or was revoked. */
async function gone(ctx: FaultContext, id: string): Promise<void> {
  await until(async () => !(await ctx.cluster.isMember(id)), `${id} to leave the members`, REACT_MS);
}

/** Waits (bounded) for the member's key in etcd. */
async function member(ctx: FaultContext, id: string): Promise<void> {
  await until(() => ctx.cluster.isMember(id), `${id} to be a member`, REACT_MS);
}

/** Waits (bounded) until mail begun after `since` to an inbox `victim` was primary of has been acknowledged. */
async function writesResume(ctx: FaultContext, since: number, victim: string): Promise<void> {
  const was = (inbox: string) => ctx.before.map[slotOf(inbox)]!.primary === victim;
  await until(() => ctx.load.ackedSince(since, was) > 0, `a 250 for the slots ${victim} was primary of`, REACT_MS).catch((err: Error) => ctx.log(err.message));
}

async function killAndRestart(ctx: FaultContext, data: 'same' | 'empty' | string, insideLease: boolean): Promise<void> {
  const { victim } = ctx;
  const killed = Date.now();
  await victim.kill('SIGKILL');
  ctx.log(`killed ${victim.id} (SIGKILL)`);
  if (!insideLease) {
    await gone(ctx, victim.id);
    ctx.log(`${victim.id}'s lease expired after ${Date.now() - killed} ms`);
  }
  if (data === 'empty') victim.replaceData(null);
  else if (data !== 'same') victim.replaceData(data);
  victim.start();
  ctx.log(`${victim.id} started again (${data === 'same' ? 'its own data' : data === 'empty' ? 'an empty data directory' : 'an older copy of its data'}) ${Date.now() - killed} ms after the kill`);
}

/** A copy of the victim's data taken now; 30 mails later it is killed and started on that copy. */
async function restartOnOlderCopy(ctx: FaultContext, insideLease: boolean): Promise<void> {
  const copy = ctx.victim.snapshot();
  try {
    const at = ctx.load.acknowledged;
    await until(() => ctx.load.acknowledged >= at + 30, '30 mails after the copy', REACT_MS);
    // And the shard has run on past the copy's generation, as a restored backup has: it must start
    // as a new member ("the data directory is an older copy").
    const generation = (dir: string) => Number(readFileSync(path.join(dir, 'generation'), 'utf8'));
    await until(() => generation(ctx.victim.dataDir) > generation(copy), 'a generation after the copy', REACT_MS);
    await killAndRestart(ctx, copy, insideLease);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The shard whose primaries include most of the load's inboxes. */
function busiestPrimary(before: ClusterStatus, load: Workload): string {
  const counts = new Map<string, number>();
  for (const inbox of load.inboxes) {
    const p = before.map[slotOf(inbox)]!.primary!;
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
}

/** Inboxes whose primary is not `victim`: the victim only follows them. */
function followedBy(before: ClusterStatus, load: Workload, victim: string): string[] {
  return load.inboxes.filter((inbox) => before.map[slotOf(inbox)]!.primary !== victim);
}

export const FAULTS: FaultDefinition[] = [
  {
    name: 'control',
    title: 'no fault (the same steps without one)',
    async inject() {},
  },
  {
    name: 'kill-primary',
    title: 'kill -9 of a primary, back on its data',
    async inject(ctx) {
      const killed = Date.now();
      await ctx.victim.kill('SIGKILL');
      ctx.log(`killed ${ctx.victim.id}`);
      await writesResume(ctx, killed, ctx.victim.id);
      await gone(ctx, ctx.victim.id);
      ctx.victim.start();
    },
  },
  {
    name: 'kill-follower',
    title: 'kill -9 of a follower (load only on slots it follows), back on its data',
    targets: followedBy,
    async inject(ctx) {
      await ctx.victim.kill('SIGKILL');
      ctx.log(`killed ${ctx.victim.id}`);
      await gone(ctx, ctx.victim.id);
      const after = ctx.load.acknowledged;
      await until(() => ctx.load.acknowledged >= after + 20, '20 mails acknowledged without the follower', REACT_MS).catch((err: Error) => ctx.log(err.message));
      ctx.victim.start();
    },
  },
  {
    name: 'kill-controller-mid-move',
    title: 'kill -9 of the controller while a joining shard takes slots',
    victim: (before) => before.controller!,
    async inject(ctx) {
      const joined = await ctx.cluster.addShard();
      ctx.log(`${joined.id} joins`);
      await until(async () => (await ctx.cluster.status()).moves.some((m) => m.state === 'copying' || m.state === 'switching'), 'a move in progress', REACT_MS);
      const controller = (await ctx.cluster.status()).controller!;
      const victim = ctx.cluster.shard(controller);
      await victim.kill('SIGKILL');
      ctx.log(`killed the controller ${controller} mid-move`);
      await until(async () => {
        const c = (await ctx.cluster.status()).controller;
        return c !== null && c !== controller;
      }, 'another controller', REACT_MS);
      await gone(ctx, controller);
      victim.start();
    },
  },
  {
    name: 'pause-short',
    title: `SIGSTOP of a primary for half the lease (${LEASE_TTL_S / 2} s)`,
    async inject(ctx) {
      ctx.victim.pause();
      await sleep((LEASE_TTL_S * 1000) / 2);
      ctx.victim.resume();
    },
  },
  {
    name: 'pause-long',
    title: `SIGSTOP of a primary for twice the lease and more (${2 * LEASE_TTL_S + 1} s)`,
    async inject(ctx) {
      ctx.victim.pause();
      await sleep((2 * LEASE_TTL_S + 1) * 1000);
      ctx.victim.resume();
      await member(ctx, ctx.victim.id);
    },
  },
  {
    name: 'pause-follower-kill-primary',
    title: 'a follower paused 5 s (SIGSTOP), then its primary killed (-9), back on its data',
    targets: followedBy,
    async inject(ctx) {
      // The primary of the load's first inbox, which the victim follows.
      const primary = ctx.cluster.shard(ctx.before.map[slotOf(ctx.load.inboxes.find((i) => ctx.before.map[slotOf(i)]!.primary !== ctx.victim.id)!)]!.primary!);
      ctx.victim.pause();
      ctx.log(`paused ${ctx.victim.id}`);
      await sleep(5000);
      ctx.victim.resume();
      await member(ctx, ctx.victim.id);
      const killed = Date.now();
      await primary.kill('SIGKILL');
      ctx.log(`resumed ${ctx.victim.id}, killed its primary ${primary.id}`);
      await writesResume(ctx, killed, primary.id);
      await gone(ctx, primary.id);
      primary.start();
    },
  },
  {
    name: 'cut-shard-etcd',
    title: `a primary cut off from etcd for ${2 * LEASE_TTL_S + 2} s (TCP proxy stops forwarding)`,
    async inject(ctx) {
      ctx.victim.etcdLink.cutOff();
      await sleep((2 * LEASE_TTL_S + 2) * 1000);
      ctx.victim.etcdLink.heal();
      await member(ctx, ctx.victim.id);
    },
  },
  {
    name: 'cut-front-etcd',
    title: `a front cut off from etcd for ${2 * LEASE_TTL_S + 2} s while a primary is killed (-9)`,
    async inject(ctx) {
      const front = ctx.cluster.fronts[1]!;
      front.etcdLink.cutOff();
      await ctx.victim.kill('SIGKILL');
      ctx.log(`cut front-1 from etcd, killed ${ctx.victim.id}`);
      await sleep((2 * LEASE_TTL_S + 2) * 1000);
      front.etcdLink.heal();
      ctx.victim.start();
    },
  },
  {
    name: 'cut-primary',
    title: `a primary and a front cut off from etcd for ${2 * LEASE_TTL_S + 2} s`,
    async inject(ctx) {
      ctx.victim.etcdLink.cutOff();
      ctx.cluster.fronts[1]!.etcdLink.cutOff();
      await sleep((2 * LEASE_TTL_S + 2) * 1000);
      ctx.victim.etcdLink.heal();
      ctx.cluster.fronts[1]!.etcdLink.heal();
      await member(ctx, ctx.victim.id);
    },
  },
  {
    name: 'restart-empty-inside-lease',
    title: 'a primary restarted at once (inside its lease) on an empty data directory',
    inject: (ctx) => killAndRestart(ctx, 'empty', true),
  },
  {
    name: 'restart-empty-outside-lease',
    title: 'a primary restarted after its lease expired on an empty data directory',
    inject: (ctx) => killAndRestart(ctx, 'empty', false),
  },
  {
    name: 'restart-older-inside-lease',
    title: 'a primary restarted at once (inside its lease) on an older copy of its data',
    inject: (ctx) => restartOnOlderCopy(ctx, true),
  },
  {
    name: 'restart-older-outside-lease',
    title: 'a primary restarted after its lease expired on an older copy of its data',
    inject: (ctx) => restartOnOlderCopy(ctx, false),
  },
  {
    name: 'etcd-restart',
    title: 'etcd killed (-9) and started again on its data after 2 s',
    async inject(ctx) {
      await ctx.etcd.restart(2000, 'SIGKILL');
      ctx.log('etcd restarted');
    },
  },
];

export function fault(name: string): FaultDefinition {
  const f = FAULTS.find((x) => x.name === name);
  if (!f) throw new Error(`no fault ${name}; known: ${FAULTS.map((x) => x.name).join(', ')}`);
  return f;
}

export interface RunResult {
  fault: string;
  title: string;
  replicas: number;
  victim: string;
  verdict: Verdict;
  violations: string[];
  /** The cluster did not settle after the heal (within the bound): said, and the checker runs anyway. */
  unsettled: string | null;
  seconds: number;
  log: string[];
}

let runs = 0;

export interface RunOptions {
  etcd: EtcdServer;
  /** Copies of every slot (default 3, DESIGN §8's default for 3 shards; issue 34 found its losses with 2). */
  replicas?: number;
  /** Run on this cluster (settled, with `receiver`'s CA trusted) instead of a fresh one, which the run then does not stop. */
  cluster?: FaultCluster;
  receiver?: Receiver;
  onLog?(line: string): void;
}

/** The cluster a run starts: etcd, 3 shards, 2 fronts, lease 3 s, webhooks to `receiver` retried fast. */
export function startFaultCluster(etcd: EtcdServer, receiver: Receiver, replicas = 3): Promise<FaultCluster> {
  return FaultCluster.start({
    etcd, shards: SHARDS, fronts: FRONTS, leaseTtlS: LEASE_TTL_S, replicas, minInsync: 2,
    env: {
      MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true', MAILCUE_WEBHOOK_CA_FILE: receiver.caFile, MAILCUE_WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000',
      MAILCUE_PLANS_FILE: plansFile(receiver),
    },
  });
}

/** One run: the load on a settled cluster (a fresh one unless given), the fault and its heal, the checker. */
export async function runFault(def: FaultDefinition, options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const lines: string[] = [];
  const log = (msg: string) => {
    const line = `${((Date.now() - started) / 1000).toFixed(1)} s ${def.name}: ${msg}`;
    lines.push(line);
    options.onLog?.(line);
  };
  const receiver = options.receiver ?? (await startReceiver());
  let cluster: FaultCluster | null = options.cluster ?? null;
  try {
    cluster ??= await startFaultCluster(options.etcd, receiver, options.replicas);
    await cluster.settled();
    log('cluster settled');
    const load = new Workload(cluster, receiver, { run: `r${process.pid}x${++runs}` });
    await load.prepare();
    const before = await cluster.status();
    const victimId = def.victim?.(before, load) ?? busiestPrimary(before, load);
    const victim = cluster.shard(victimId);
    load.start(before, def.targets?.(before, load, victimId));
    await until(() => load.acknowledged >= ACKS_BEFORE, `${ACKS_BEFORE} mails acknowledged before the fault`, 60_000);
    log(`fault on ${victimId} after ${load.acknowledged} acknowledged mails`);
    await def.inject({ cluster, load, etcd: options.etcd, before, victim, log });
    const healed = load.acknowledged;
    log('healed');
    await until(() => load.acknowledged >= healed + ACKS_AFTER, `${ACKS_AFTER} mails acknowledged after the heal`, 60_000).catch((err: Error) => log(err.message));
    await load.stop();
    let unsettled: string | null = null;
    await cluster.settled().catch((err: Error) => (unsettled = err.message));
    log(unsettled ?? 'settled again');
    const verdict = await check(cluster, load, receiver);
    const found = violations(verdict);
    if (unsettled) found.push(unsettled);
    log(`${verdict.acknowledged} acknowledged, ${verdict.lost.length} lost, ${verdict.duplicated.length} duplicated, ${verdict.unavailableWriteS} s writes unavailable`);
    log(`long-polls answered with ${load.polledShown.rest} messages over REST, ${load.polledShown.mcp} over MCP`);
    return {
      fault: def.name, title: def.title, replicas: cluster.options.replicas, victim: victimId, verdict, violations: found, unsettled,
      seconds: Math.round((Date.now() - started) / 1000), log: lines,
    };
  } finally {
    if (!options.cluster) await cluster?.stop();
    if (!options.receiver) await receiver.close();
  }
}

function plansFile(receiver: Receiver): string {
  const file = path.join(path.dirname(receiver.caFile), 'fault-plans.json');
  // The readers and the checker make more REST calls than a plan allows per minute.
  writeFileSync(file, JSON.stringify({ enterprise: { restPerMinute: 1_000_000 } }));
  return file;
}

/** The results table's row of one fault over its runs. */
export interface TableRow {
  fault: string;
  title: string;
  runs: number;
  acknowledged: number;
  lost: number;
  duplicated: number;
  vanished: number;
  webhook_faults: number;
  poll_errors: number;
  unavailable_s: number;
  passed: number;
}

export function tableRows(results: RunResult[]): TableRow[] {
  const rows = new Map<string, TableRow>();
  for (const r of results) {
    const row = rows.get(r.fault) ?? { fault: r.fault, title: r.title, runs: 0, acknowledged: 0, lost: 0, duplicated: 0, vanished: 0, webhook_faults: 0, poll_errors: 0, unavailable_s: 0, passed: 0 };
    const v = r.verdict;
    row.runs++;
    row.acknowledged += v.acknowledged;
    row.lost += v.lost.length;
    row.duplicated += v.duplicated.length;
    row.vanished += v.vanished.length;
    row.webhook_faults += v.phantomWebhooks.length + v.missingWebhooks.length + v.splitWebhookIds.length;
    row.poll_errors += v.pollErrors.length;
    // The worst run's unavailability.
    row.unavailable_s = Math.max(row.unavailable_s, v.unavailableWriteS);
    row.passed += r.violations.length === 0 ? 1 : 0;
    rows.set(r.fault, row);
  }
  return [...rows.values()];
}

export function markdownTable(rows: TableRow[]): string {
  const head = '| fault | runs | acknowledged | lost | duplicated | vanished after read | webhook faults | long-poll errors | unavailable s (worst run) | runs passed |';
  const lines = [head, '|---|---|---|---|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.fault}: ${r.title} | ${r.runs} | ${r.acknowledged} | ${r.lost} | ${r.duplicated} | ${r.vanished} | ${r.webhook_faults} | ${r.poll_errors} | ${r.unavailable_s} | ${r.passed}/${r.runs} |`);
  return lines.join('\n');
}
