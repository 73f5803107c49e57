// Starts a fresh Mailcue from dist/ in a temp data dir with plan limits lifted: embedded (`mailcue
// serve`, one process) or as a cluster (`mailcue shard` × N + `mailcue front` × M processes, used
// when one process cannot hold the sockets a scenario needs under the open-file limit). A cluster
// with `etcd` registers its shards there (DESIGN.md §8) and can grow with addShard().
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, jsonRequest, mapLimit } from './net-util.js';
import { start, stop, waitFor, type Child } from './proc.js';
import { startDnsServer, type TestDnsServer } from '../../test/helpers/dns-server.js';

const CLI = path.resolve('dist/cli/main.js');
const READY_TIMEOUT_MS = 120_000;

/** Plan numbers high enough that no limit shapes a figure. */
export const LIFTED_PLANS = {
  growth: {
    opsPerMinute: 100_000_000, restPerMinute: 100_000_000, concurrentSessions: 100_000, monthlyCredits: 1_000_000_000,
    maxInboxes: 100_000_000, maxMessagesPerInbox: 100_000_000, maxStoredBytes: 2 ** 50, webhooksPerInbox: 1_000,
  },
};

export interface MailcueOptions {
  /** Extra MAILCUE_* variables (e.g. the webhook CA file). */
  env?: Record<string, string>;
  /** Number of `mailcue front` processes; 0 (default) runs the embedded `mailcue serve`. */
  fronts?: number;
  /** Node flags for the service processes only, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] (Node 20 refuses --cpu-prof in NODE_OPTIONS). */
  nodeArgs?: string[];
  /** Cluster through this etcd endpoint: `shards` members shard-0… on loopback TCP, fronts following the slot map. */
  etcd?: string;
  /** Shard processes of a cluster (default 2). */
  shards?: number;
  /** Pool threads of each front (default 1 in a cluster, cores when embedded). */
  frontPoolThreads?: number;
  /**
   * Every front process listens on one HTTP port (uWebSockets.js sets SO_REUSEPORT on Linux, and
   * the kernel spreads connections over them): several front event loops behind one address.
   */
  sharedHttpPort?: boolean;
}

export interface Endpoint {
  httpPort: number;
  smtpPort: number;
  base: string;
  /** The ops listener: /metrics, /livez, /readyz. */
  ops: string;
}

export class Mailcue {
  private constructor(
    readonly dir: string,
    readonly adminToken: string,
    readonly processes: Child[],
    /** One per front process (a single one when embedded). */
    readonly endpoints: Endpoint[],
    readonly layout: string,
    /** The environment every service process got (addShard() starts one more with it). */
    private readonly env: Record<string, string> = {},
    private readonly nodeArgs: string[] = [],
    /** Starts each process of `processes` again, in order, with the same arguments and ports (restart()). */
    private readonly launchers: (() => Child)[] = [],
    /** The loopback DNS server the processes ask (MAILCUE_DNS_SERVERS), when the caller gave none. */
    private readonly dns: TestDnsServer | null = null,
  ) {}

  /** The data dir every process of an embedded Mailcue uses. */
  get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  /**
   * Stops every process (the data dir stays), runs `between` (e.g. seeding the stopped data dir
   * through the storage layer), and starts them again on the same ports.
   */
  async restart(between: () => Promise<void> = async () => {}): Promise<void> {
    if (this.launchers.length !== this.processes.length) throw new Error('restart() needs a Mailcue started by start() without added shards');
    for (const p of [...this.processes].reverse()) await stop(p, 10_000);
    await between();
    this.launchers.forEach((launch, i) => (this.processes[i] = launch()));
    for (const e of this.endpoints) {
      await waitFor(`Mailcue ready again at ${e.base}`, async () => {
        const dead = this.processes.find((p) => p.exited);
        if (dead) throw Object.assign(new Error(`${dead.name} exited (${dead.exitCode}): ${dead.output.slice(-10).join('\n')}`), { fatal: true });
        return (await fetch(`${e.base}/readyz`, { signal: AbortSignal.timeout(2000) })).status === 200;
      }, READY_TIMEOUT_MS, 100);
    }
  }

  /** The etcd key prefix of a cluster started with `etcd`. */
  get etcdPrefix(): string | undefined {
    return this.env.MAILCUE_ETCD_PREFIX;
  }

  get base(): string {
    return this.endpoints[0]!.base;
  }

  get smtpPort(): number {
    return this.endpoints[0]!.smtpPort;
  }

  get httpPort(): number {
    return this.endpoints[0]!.httpPort;
  }

  get pids(): { name: string; pid: number }[] {
    return this.processes.filter((p) => !p.exited).map((p) => ({ name: 'mailcue', pid: p.pid }));
  }

  /** Live service processes by role: `serve` (embedded), `front` or `shard`. */
  get roles(): { role: string; pid: number }[] {
    return this.processes.filter((p) => !p.exited).map((p) => ({ role: p.name.includes('front') ? 'front' : p.name.includes('shard') ? 'shard' : 'serve', pid: p.pid }));
  }

  static async start(opts: MailcueOptions = {}): Promise<Mailcue> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-bench-'));
    const plansFile = path.join(dir, 'plans.json');
    writeFileSync(plansFile, JSON.stringify(LIFTED_PLANS));
    const adminToken = randomBytes(16).toString('hex');
    const baseEnv: Record<string, string> = {
      MAILCUE_HOST: '127.0.0.1',
      MAILCUE_DATA_DIR: path.join(dir, 'data'),
      MAILCUE_ADMIN_TOKEN: adminToken,
      MAILCUE_LOG_LEVEL: 'warn',
      MAILCUE_PLANS_FILE: plansFile,
      MAILCUE_MASTER_KEY: randomBytes(32).toString('hex'),
      MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true',
      ...(opts.env ?? {}),
    };
    // Bench traffic stays on loopback, DNS included: each mail's sender check asks for SPF and DMARC
    // records, here of a server that knows no names (NXDOMAIN), as the machine's resolver answers
    // for the bench's reserved domains.
    const dns = baseEnv.MAILCUE_DNS_SERVERS === undefined ? await startDnsServer() : null;
    if (dns) baseEnv.MAILCUE_DNS_SERVERS = dns.address;
    const node = (...args: string[]) => [...(opts.nodeArgs ?? []), CLI, ...args];
    const processes: Child[] = [];
    const launchers: (() => Child)[] = [];
    const endpoints: Endpoint[] = [];
    let layout: string;
    /** A process with a front tier (`serve` or `front`) on free ports; `poolThreads` null keeps the default. */
    let sharedHttpPort: number | null = null;
    const frontTier = async (name: string, args: string[], poolThreads: number | null) => {
      const httpPort = opts.sharedHttpPort ? (sharedHttpPort ??= await freePort()) : await freePort();
      const [smtpPort, opsPort] = [await freePort(), await freePort()];
      const base = `http://127.0.0.1:${httpPort}`;
      const env: Record<string, string> = { ...baseEnv, MAILCUE_HTTP_PORT: String(httpPort), MAILCUE_SMTP_PORT: String(smtpPort), MAILCUE_OPS_PORT: String(opsPort), MAILCUE_PUBLIC_URL: base };
      if (poolThreads !== null) env.MAILCUE_POOL_THREADS = String(poolThreads);
      const launch = () => start(name, 'node', node(...args), { env });
      launchers.push(launch);
      processes.push(launch());
      endpoints.push({ httpPort, smtpPort, base, ops: `http://127.0.0.1:${opsPort}` });
    };
    try {
      const fronts = opts.fronts ?? 0;
      const shardCount = opts.shards ?? 2;
      if (fronts === 0) {
        await frontTier('mailcue', ['serve'], null);
        layout = 'embedded: 1 process (front + 2 shard threads + pool)';
      } else if (opts.etcd) {
        // Info unless the caller says otherwise: bench:reshard reads the shards' "slot moved" lines.
        Object.assign(baseEnv, { MAILCUE_ETCD_ENDPOINTS: opts.etcd, MAILCUE_ETCD_PREFIX: `/${path.basename(dir)}/`, MAILCUE_LOG_LEVEL: opts.env?.MAILCUE_LOG_LEVEL ?? 'info' });
        for (let id = 0; id < shardCount; id++) processes.push(await startClusterShard(dir, baseEnv, opts.nodeArgs ?? [], id));
        for (let f = 0; f < fronts; f++) await frontTier(`mailcue-front-${f}`, ['front'], opts.frontPoolThreads ?? 1);
        layout = `etcd cluster: ${fronts} front + ${shardCount} shard processes`;
      } else {
        const map: string[] = [];
        for (let id = 0; id < shardCount; id++) {
          const sock = path.join(dir, `shard-${id}.sock`);
          map.push(`${id}=unix:${sock}`);
          const launch = () => start(`mailcue-shard-${id}`, 'node', node('shard', '--id', String(id), '--listen', `unix:${sock}`, '--data', path.join(dir, 'data', `shard-${id}`)), { env: baseEnv });
          launchers.push(launch);
          processes.push(launch());
        }
        for (let f = 0; f < fronts; f++) await frontTier(`mailcue-front-${f}`, ['front', '--shards', map.join(',')], opts.frontPoolThreads ?? 1);
        layout = `cluster: ${fronts} front + ${shardCount} shard processes`;
      }
      const mc = new Mailcue(dir, adminToken, processes, endpoints, layout, baseEnv, opts.nodeArgs ?? [], opts.etcd ? [] : launchers, dns);
      for (const e of endpoints) {
        await waitFor(`Mailcue ready at ${e.base}`, async () => {
          const dead = processes.find((p) => p.exited);
          if (dead) throw Object.assign(new Error(`${dead.name} exited (${dead.exitCode}): ${dead.output.slice(-10).join('\n')}`), { fatal: true });
          // On a shared HTTP port any front may answer there; each front's own ops port is its own.
          return (await fetch(`${opts.sharedHttpPort ? e.ops : e.base}/readyz`, { signal: AbortSignal.timeout(2000) })).status === 200;
        }, READY_TIMEOUT_MS, 100).catch((err) => {
          const dead = processes.find((p) => p.exited);
          throw dead ? new Error(`${dead.name} exited (${dead.exitCode}): ${dead.output.slice(-10).join('\n')}`) : err;
        });
      }
      return mc;
    } catch (err) {
      await Promise.all(processes.map((p) => stop(p)));
      await dns?.close();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** An etcd cluster: starts member `shard-${id}`, which joins and takes its slots. */
  async addShard(id: number): Promise<Child> {
    if (!this.env.MAILCUE_ETCD_ENDPOINTS) throw new Error('addShard() needs a cluster started with etcd');
    const child = await startClusterShard(this.dir, this.env, this.nodeArgs, id);
    this.processes.unshift(child);
    return child;
  }

  /** Creates a Growth account and returns its API key. */
  async createAccount(): Promise<string> {
    const r = await jsonRequest('POST', `${this.base}/admin/v1/accounts`, { token: this.adminToken, body: { plan: 'growth', name: 'bench' } });
    if (r.status !== 201) throw new Error(`POST /admin/v1/accounts → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data.api_key as string;
  }

  /** Creates inboxes `${prefix}${i}@mailcue.test` for i in [0, n), 32 requests at a time. */
  async createInboxes(key: string, prefix: string, n: number): Promise<string[]> {
    const addresses = Array.from({ length: n }, (_, i) => `${prefix}${i}@mailcue.test`);
    await mapLimit(n, 32, async (i) => {
      const r = await jsonRequest('POST', `${this.endpoints[i % this.endpoints.length]!.base}/v1/inboxes`, { token: key, body: { address: addresses[i] } });
      if (r.status !== 201) throw new Error(`POST /v1/inboxes ${addresses[i]} → ${r.status} ${JSON.stringify(r.body)}`);
    });
    return addresses;
  }

  /** The `mailcue_parked_waiters` gauge (across all shards) as one front's ops listener reports it. */
  parkedWaiters(endpoint = 0): Promise<number> {
    return this.gauge('mailcue_parked_waiters', endpoint);
  }

  /** An unlabelled metric from one front's ops listener. */
  async gauge(name: string, endpoint = 0): Promise<number> {
    const text = await (await fetch(`${this.endpoints[endpoint]!.ops}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})?\\s+([0-9.e+-]+)`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  }

  async stop(): Promise<void> {
    // Fronts first, then shards (the order of a graceful cluster stop); shards added later are first in the list.
    for (const p of [...this.processes].reverse()) await stop(p, 10_000);
    await this.dns?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `mailcue shard --id shard-N` of an etcd cluster, on a free loopback port. */
async function startClusterShard(dir: string, env: Record<string, string>, nodeArgs: string[], id: number): Promise<Child> {
  const port = await freePort();
  return start(`mailcue-shard-${id}`, 'node', [...nodeArgs, CLI, 'shard', '--id', `shard-${id}`, '--listen', `127.0.0.1:${port}`, '--data', path.join(dir, 'data', `shard-${id}`)], { env });
}
