// Starts the real service as child processes (embedded `mailcue serve`, or a cluster of
// `mailcue shard` + `mailcue front`) in a temp data dir, and stops them by PID. Fronts start SMTP
// on port 0 and report the ports they bound (MAILCUE_PORTS_FILE); a restart asks for the same
// ports again, so the service keeps its URLs. HTTP starts on port 0 too, except for a service the
// test will restart (`restartable`): uWS sets SO_REUSEPORT only on sockets bound to an explicit
// port, so a port it picked itself cannot be bound again while the old connections linger.
import type { ExecutionContext } from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDnsServer, type TestDnsServer } from './dns-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = path.join(ROOT, 'dist/cli/main.js');
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/**
 * The first port of the kernel's ephemeral range: ports below it are never handed to an outgoing
 * connection or a bind to port 0, so one picked there stays free between the check and its use
 * unless another test picks the same one.
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 12_000) return low;
  } catch {
    /* not Linux: the usual default */
  }
  return 32_768;
}

const PICK_FROM = 10_000;
const picked = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '0.0.0.0', () => srv.close(() => resolve(true)));
  });
}

/**
 * A free TCP port for a process the test starts with an explicit port. It is picked at random
 * below the ephemeral range, where the test's own client connections and port-0 listeners never
 * land, and checked by binding it.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  for (let tries = 0; tries < 200; tries++) {
    const port = PICK_FROM + Math.floor(Math.random() * (high - PICK_FROM));
    if (picked.has(port)) continue;
    picked.add(port); // before the check: two picks running at once never share a port
    if (await bindable(port)) return port;
    picked.delete(port);
  }
  throw new Error(`no free port found in ${PICK_FROM}-${high}`);
}

export interface Service {
  /** The front's URL (the first front's in a cluster), known once it has bound its port. */
  baseUrl: string;
  httpPort: number;
  smtpPort: number;
  dataDir: string;
  env: Record<string, string>;
  processes: ChildProcess[];
  /** The loopback DNS server the service asks when the test gave it none (MAILCUE_DNS_SERVERS). */
  dns: TestDnsServer | null;
  /** Every front tier's base URL (one in embedded mode). */
  frontUrls: string[];
  /** Every front's ops listener (/metrics, /livez, /readyz), in the order of `frontUrls`. */
  opsUrls: string[];
  /** The Prometheus text of a front's ops listener. */
  metrics(front?: number): Promise<string>;
  /** The `mailcue_parked_waiters` gauge (all shards) as a front's ops listener reports it. */
  parkedWaiters(front?: number): Promise<number>;
  stop(): Promise<void>;
  /** Stops every process (SIGKILL when `hard`) and starts them again on the same data dir. */
  restart(options?: { hard?: boolean }): Promise<void>;
  createAccount(plan?: string, name?: string): Promise<{ id: string; api_key: string; plan: string }>;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  api(key: string, method: string, path: string, body?: unknown): Promise<Response>;
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

export function launch(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const keep = (b: Buffer) => {
    tail.push(b.toString());
    if (tail.length > 50) tail.shift();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  // MAILCUE_TEST_LOG_DIR=<dir>: every process's whole output is kept there as <args>-<pid>.log
  // (a fault run's story; the tail above is all a failing test prints otherwise).
  const logDir = process.env.MAILCUE_TEST_LOG_DIR;
  if (logDir) {
    const file = createWriteStream(path.join(logDir, `${args.filter((a) => !a.includes('/')).slice(0, 3).join('-')}-${child.pid}.log`));
    child.stdout!.pipe(file);
    child.stderr!.pipe(file);
  }
  (child as ChildProcess & { tail: string[] }).tail = tail;
  return child;
}

/** The last output of a process started by launch(). */
function said(child: ChildProcess): string {
  return (child as ChildProcess & { tail: string[] }).tail.join('');
}

/** For `test.afterEach.always`: a failed test logs how each of the service's processes ended and what it said last. */
export function logProcessesIfFailed(t: ExecutionContext, svc: Service | undefined, chars = 3000): void {
  if (t.passed || !svc) return;
  for (const p of svc.processes) t.log(`--- ${p.spawnargs.slice(2).join(' ')} exit=${p.exitCode} ${p.signalCode}\n${said(p).slice(-chars)}`);
}

export async function waitReady(baseUrl: string, children: ChildProcess[], timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < end) {
    for (const c of children) {
      if (c.exitCode !== null) throw new Error(`service exited (${c.exitCode}): ${said(c)}`);
    }
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = `not listening yet (${(err as Error).message})`;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service not ready after ${timeoutMs} ms; last /readyz: ${last}${children.map((c) => `\n--- ${c.spawnargs.slice(2).join(' ')}:\n${said(c)}`).join('')}`);
}

export async function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, 8000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Run as a cluster: this many `mailcue shard` processes behind `mailcue front` processes. */
  clusterShards?: number;
  /** Cluster mode: how many front processes (default 1); their URLs are in `frontUrls`. */
  fronts?: number;
  dataDir?: string;
  /** Cluster mode through etcd (DESIGN.md §8): shards register there as shard-0…, fronts follow the slot map. */
  etcd?: string;
  /** The test calls `restart()`: HTTP binds a free port chosen here, which can be bound again. */
  restartable?: boolean;
  /** etcd cluster mode: more environment for one shard (by index) or front (by index), e.g. etcd through a proxy. */
  shardEnv?: (index: number) => Record<string, string>;
  frontEnvOf?: (index: number) => Record<string, string>;
  /** Cluster mode: env of the fronts only, over `env` (e.g. a front's certificate). */
  frontEnv?: Record<string, string>;
}

/** What the processes a front depends on (its shards) said, for the error when the front exits. */
function othersSaid(others: ChildProcess[]): string {
  return others.map((o) => `\n--- ${o.spawnargs.slice(2).join(' ')} (${o.exitCode === null ? 'running' : `exited ${o.exitCode}`}):\n${said(o)}`).join('');
}

/** The ports a front wrote to its MAILCUE_PORTS_FILE, once it has bound them. */
export async function boundPorts(file: string, child: ChildProcess, others: ChildProcess[] = [], timeoutMs = 60_000): Promise<{ http: number; smtp: number; ops: number }> {
  const end = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode}): ${said(child)}${othersSaid(others)}`);
    if (Date.now() > end) throw new Error(`no ports reported after ${timeoutMs} ms: ${said(child)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return JSON.parse(readFileSync(file, 'utf8')) as { http: number; smtp: number; ops: number };
}

export async function startService(options: StartOptions = {}): Promise<Service> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'mailcue-test-'));
  const env: Record<string, string> = {
    MAILCUE_HOST: '127.0.0.1',
    MAILCUE_DATA_DIR: dataDir,
    MAILCUE_ADMIN_TOKEN: ADMIN_TOKEN,
    MAILCUE_LOG_LEVEL: 'warn',
    MAILCUE_POOL_THREADS: '1',
    ...options.env,
  };
  // Test traffic stays on loopback, DNS included: every received mail's sender check asks for SPF
  // and DMARC records. A service given no resolver asks one of its own here, which knows no names
  // (NXDOMAIN), as the machine's resolver answers for the reserved test domains.
  const dns = env.MAILCUE_DNS_SERVERS === undefined ? await startDnsServer() : null;
  if (dns) env.MAILCUE_DNS_SERVERS = dns.address;
  const shardPorts = options.clusterShards ? await Promise.all(Array.from({ length: options.clusterShards }, freePort)) : [];
  const frontCount = options.clusterShards ? Math.max(1, options.fronts ?? 1) : 1;
  // SMTP (and HTTP when asked) is 0 until the first boot binds it; restarts ask for the same ports.
  const httpOnPortZero = options.env?.MAILCUE_HTTP_PORT === '0' || !options.restartable;
  const fronts = await Promise.all(Array.from({ length: frontCount }, async (_, i) => ({
    // The ops listener too: a port picked here and bound later can be taken in between by another test.
    http: httpOnPortZero ? 0 : await freePort(), smtp: 0, ops: httpOnPortZero ? 0 : await freePort(), portsFile: path.join(dataDir, `front-${i}.ports.json`),
  })));
  /** Filled in once the fronts have reported the ports they bound. */
  const opsUrls: string[] = [];
  const processes: ChildProcess[] = [];
  // Port 0 in the public URL: the front names itself after the port it binds.
  const frontEnv = (f: (typeof fronts)[number]) => ({
    MAILCUE_PUBLIC_URL: `http://127.0.0.1:${f.http}`, ...env, ...options.frontEnv,
    MAILCUE_HTTP_PORT: String(f.http), MAILCUE_SMTP_PORT: String(f.smtp), MAILCUE_OPS_PORT: String(f.ops), MAILCUE_PORTS_FILE: f.portsFile,
  });

  const boot = async () => {
    processes.length = 0;
    const launched: ChildProcess[] = [];
    for (const f of fronts) rmSync(f.portsFile, { force: true });
    if (options.clusterShards && options.etcd) {
      env.MAILCUE_ETCD_ENDPOINTS = options.etcd;
      env.MAILCUE_ETCD_PREFIX ??= `/${path.basename(dataDir)}/`;
      env.MAILCUE_MASTER_KEY ??= 'a'.repeat(64);
      for (const [id, port] of shardPorts.entries()) {
        processes.push(launch(['shard', '--id', `shard-${id}`, '--listen', `127.0.0.1:${port}`, '--data', path.join(dataDir, `shard-${id}`)], { ...env, ...options.shardEnv?.(id) }));
      }
      for (const [i, f] of fronts.entries()) launched.push(launch(['front'], { ...frontEnv(f), ...options.frontEnvOf?.(i) }));
    } else if (options.clusterShards) {
      for (const [id, port] of shardPorts.entries()) {
        processes.push(launch(['shard', '--id', String(id), '--listen', `127.0.0.1:${port}`, '--data', path.join(dataDir, `shard-${id}`)], env));
      }
      const map = shardPorts.map((p, id) => `${id}=127.0.0.1:${p}`).join(',');
      env.MAILCUE_SHARDS = map;
      for (const f of fronts) launched.push(launch(['front', '--shards', map], frontEnv(f)));
    } else {
      launched.push(launch(['serve'], frontEnv(fronts[0]!)));
    }
    processes.push(...launched);
    const shards = processes.filter((p) => !launched.includes(p));
    for (const [i, f] of fronts.entries()) Object.assign(f, await boundPorts(f.portsFile, launched[i]!, shards));
    opsUrls.splice(0, opsUrls.length, ...fronts.map((f) => `http://127.0.0.1:${f.ops}`));
    service.httpPort = fronts[0]!.http;
    service.smtpPort = fronts[0]!.smtp;
    service.baseUrl = `http://127.0.0.1:${fronts[0]!.http}`;
    service.frontUrls = fronts.map((f) => `http://127.0.0.1:${f.http}`);
    // A cluster through etcd is ready once every slot has a live shard: shards join one by one.
    for (const url of service.frontUrls) await waitReady(url, processes, options.etcd ? 90_000 : undefined);
  };

  const stopAll = async (signal?: NodeJS.Signals) => {
    // Front first, so no request reaches a stopped shard.
    for (const child of [...processes].reverse()) await kill(child, signal);
  };

  const service: Service = {
    baseUrl: '', httpPort: 0, smtpPort: 0, dataDir, env, processes, dns, frontUrls: [], opsUrls,
    async metrics(front = 0) {
      return (await fetch(`${opsUrls[front]}/metrics`)).text();
    },
    async parkedWaiters(front = 0) {
      return Number(/^mailcue_parked_waiters (\d+)/m.exec(await service.metrics(front))![1]);
    },
    async stop() {
      await stopAll();
      await dns?.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    async restart(opts) {
      if (!options.restartable) throw new Error('restart() needs startService({ restartable: true })');
      await stopAll(opts?.hard ? 'SIGKILL' : 'SIGTERM');
      await boot();
    },
    admin(method, p, body) {
      return fetch(`${service.baseUrl}${p}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
    api(key, method, p, body) {
      return fetch(`${service.baseUrl}${p}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    },
    async createAccount(plan = 'growth', name) {
      const res = await service.admin('POST', '/admin/v1/accounts', { plan, name });
      if (res.status !== 201) throw new Error(`create account: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { data: { id: string; api_key: string; plan: string } }).data;
    },
    cli(args) {
      return new Promise((resolve) => {
        const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (b) => (stdout += b));
        child.stderr.on('data', (b) => (stderr += b));
        child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      });
    },
  };
  try {
    await boot();
  } catch (err) {
    await stopAll('SIGKILL');
    await dns?.close();
    throw err;
  }
  return service;
}
