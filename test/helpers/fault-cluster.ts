// A cluster for the fault suite (DESIGN.md §8 "Faults the cluster must survive"): real etcd, real
// `mailcue shard` and `mailcue front` processes on loopback, each of which reaches etcd through a
// TCP proxy of its own (test/helpers/tcp-proxy.ts) so that one process can be cut off from etcd
// while the others are not. Every shard can be killed, paused, started again on its own, an empty
// or an older data directory; etcd can be restarted on its data. Every process is stopped by PID.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { connectEtcd, type EtcdHandle } from '../../src/cluster/etcd.js';
import { readClusterStatus, type ClusterStatus } from '../../src/cluster/status.js';
import { SLOT_COUNT } from '../../src/cluster/slots.js';
import type { EtcdServer } from './etcd.js';
import { ADMIN_TOKEN, boundPorts, freePort, kill, launch, waitReady } from './service.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { startDnsServer, type TestDnsServer } from './dns-server.js';

export interface FaultClusterOptions {
  etcd: EtcdServer;
  shards: number;
  fronts: number;
  leaseTtlS: number;
  /** Copies of every slot and the minimum in-sync copies (DESIGN §8 defaults: 3 and 2). */
  replicas: number;
  minInsync: number;
  env?: Record<string, string>;
}

export class ShardProcess {
  child: ChildProcess | null = null;
  paused = false;

  constructor(
    readonly id: string,
    readonly port: number,
    readonly dataDir: string,
    /** Its way to etcd: cut it to cut this shard off from etcd. */
    readonly etcdLink: TcpProxy,
    private readonly env: Record<string, string>,
  ) {}

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.running) throw new Error(`${this.id} is running`);
    this.paused = false;
    this.child = launch(['shard', '--id', this.id, '--listen', `127.0.0.1:${this.port}`, '--data', this.dataDir],
      { ...this.env, MAILCUE_ETCD_ENDPOINTS: this.etcdLink.url });
  }

  /** SIGKILL (or `signal`), and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.child) return;
    if (this.paused) this.child.kill('SIGCONT');
    await kill(this.child, signal);
    this.paused = false;
  }

  pause(): void {
    this.child!.kill('SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    this.child!.kill('SIGCONT');
    this.paused = false;
  }

  /** A copy of the data directory as it is now, taken while the process is stopped for the copy (a crash-consistent image). */
  snapshot(): string {
    const copy = mkdtempSync(path.join(os.tmpdir(), `mailcue-${this.id}-copy-`));
    const wasPaused = this.paused;
    if (!wasPaused && this.running) this.pause();
    try {
      cpSync(this.dataDir, copy, { recursive: true });
    } finally {
      if (!wasPaused && this.running) this.resume();
    }
    return copy;
  }

  /** Replaces the data directory (the process must be down) with `copy`, or with nothing. */
  replaceData(copy: string | null): void {
    if (this.running) throw new Error(`${this.id} is running`);
    rmSync(this.dataDir, { recursive: true, force: true });
    if (copy) cpSync(copy, this.dataDir, { recursive: true });
  }

  /** What the process said last (for a failure's message). */
  said(): string {
    return ((this.child as (ChildProcess & { tail?: string[] }) | null)?.tail ?? []).join('');
  }
}

export interface FrontProcess {
  readonly index: number;
  readonly url: string;
  readonly smtpPort: number;
  readonly opsUrl: string;
  readonly etcdLink: TcpProxy;
  readonly child: ChildProcess;
}

/** Clusters started and not yet stopped: a runner stopped by a signal stops them first. */
const live = new Set<FaultCluster>();

export async function stopEveryCluster(): Promise<void> {
  for (const c of [...live]) await c.stop();
}

export class FaultCluster {
  readonly shards: ShardProcess[] = [];
  readonly fronts: FrontProcess[] = [];
  /** A direct client of etcd (no proxy) that reads the cluster's status. */
  private readonly watcher: EtcdHandle;
  private readonly links: TcpProxy[] = [];

  private constructor(readonly options: FaultClusterOptions, readonly dir: string, readonly env: Record<string, string>, private readonly dns: TestDnsServer) {
    this.watcher = connectEtcd({ endpoints: [options.etcd.endpoint], prefix: env.MAILCUE_ETCD_PREFIX! });
  }

  static async start(options: FaultClusterOptions): Promise<FaultCluster> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-faults-'));
    const env: Record<string, string> = {
      MAILCUE_HOST: '127.0.0.1',
      MAILCUE_DATA_DIR: dir,
      MAILCUE_ADMIN_TOKEN: ADMIN_TOKEN,
      MAILCUE_LOG_LEVEL: 'warn',
      MAILCUE_POOL_THREADS: '1',
      MAILCUE_MASTER_KEY: 'a'.repeat(64),
      MAILCUE_ETCD_PREFIX: `/${path.basename(dir)}/`,
      MAILCUE_LEASE_TTL_S: String(options.leaseTtlS),
      MAILCUE_REPLICAS: String(options.replicas),
      MAILCUE_MIN_INSYNC: String(options.minInsync),
      MAILCUE_REPLICATION_ACK: 'all',
      ...options.env,
    };
    // Sender checks ask a DNS server on loopback, not the machine's resolver (test traffic stays on loopback).
    const dns = await startDnsServer();
    env.MAILCUE_DNS_SERVERS ??= dns.address;
    const cluster = new FaultCluster(options, dir, env, dns);
    live.add(cluster);
    try {
      for (let i = 0; i < options.shards; i++) await cluster.addShard();
      for (let i = 0; i < options.fronts; i++) await cluster.addFront();
      for (const f of cluster.fronts) await waitReady(f.url, cluster.processes(), 90_000);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  private async link(): Promise<TcpProxy> {
    const link = await startTcpProxy(new URL(this.options.etcd.endpoint).host);
    this.links.push(link);
    return link;
  }

  /** Starts one more shard, `shard-<n>`. */
  async addShard(): Promise<ShardProcess> {
    const id = `shard-${this.shards.length}`;
    const shard = new ShardProcess(id, await freePort(), path.join(this.dir, id), await this.link(), this.env);
    this.shards.push(shard);
    shard.start();
    return shard;
  }

  private async addFront(): Promise<void> {
    const index = this.fronts.length;
    const etcdLink = await this.link();
    const portsFile = path.join(this.dir, `front-${index}.ports.json`);
    const child = launch(['front'], {
      ...this.env, MAILCUE_ETCD_ENDPOINTS: etcdLink.url, MAILCUE_PUBLIC_URL: 'http://127.0.0.1:0',
      MAILCUE_HTTP_PORT: '0', MAILCUE_SMTP_PORT: '0', MAILCUE_OPS_PORT: '0', MAILCUE_PORTS_FILE: portsFile,
    });
    const ports = await boundPorts(portsFile, child, this.processes());
    this.fronts.push({ index, url: `http://127.0.0.1:${ports.http}`, smtpPort: ports.smtp, opsUrl: `http://127.0.0.1:${ports.ops}`, etcdLink, child });
  }

  processes(): ChildProcess[] {
    return [...this.shards.map((s) => s.child), ...this.fronts.map((f) => f.child)].filter((c): c is ChildProcess => c !== null);
  }

  shard(id: string): ShardProcess {
    const s = this.shards.find((x) => x.id === id);
    if (!s) throw new Error(`no ${id}`);
    return s;
  }

  status(): Promise<ClusterStatus> {
    return readClusterStatus(this.watcher.ns, this.options.replicas);
  }

  /** Whether `id` holds a membership key in etcd (its lease is alive). */
  async isMember(id: string): Promise<boolean> {
    return (await this.status()).members.some((m) => m.id === id);
  }

  /**
   * Waits (bounded) until every running shard is an active member, no move runs, and every slot
   * has a primary and its full number of copies on members.
   */
  async settled(timeoutMs = 120_000): Promise<ClusterStatus> {
    const end = Date.now() + timeoutMs;
    const ids = this.shards.filter((s) => s.running).map((s) => s.id).sort();
    const copies = Math.min(this.options.replicas, ids.length);
    let last = '';
    for (;;) {
      const s = await this.status().catch((err: Error) => (last = err.message, null));
      if (s) {
        const members = s.members.map((m) => m.id).sort();
        const live = new Set(members);
        const short = s.map.filter((e) => e.primary === null || !live.has(e.primary) || 1 + e.followers.filter((f) => live.has(f)).length < copies).length;
        if (JSON.stringify(members) === JSON.stringify(ids) && s.moves.length === 0 && short === 0 && s.members.every((m) => m.state === 'active')) return s;
        last = `members ${JSON.stringify(s.members)}, ${s.moves.length} moves, ${short} of ${SLOT_COUNT} slots short of a primary or a copy`;
      }
      if (Date.now() > end) throw new Error(`cluster not settled after ${timeoutMs} ms: ${last}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async createAccount(plan = 'enterprise'): Promise<string> {
    const res = await fetch(`${this.fronts[0]!.url}/admin/v1/accounts`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ plan }),
    });
    if (res.status !== 201) throw new Error(`create account: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { api_key: string } }).data.api_key;
  }

  async stop(): Promise<void> {
    live.delete(this);
    // Nobody waits out a cut to say goodbye to etcd.
    for (const l of this.links) l.heal();
    for (const f of [...this.fronts].reverse()) await kill(f.child);
    for (const s of this.shards) await s.kill('SIGTERM');
    for (const l of this.links) await l.close();
    this.watcher.close();
    await this.dns.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
