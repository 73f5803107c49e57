// deploy/docker-compose.yml run as processes (no Docker here): each service's command, with the
// compose network's names and ports mapped to free loopback ports, volumes to temp dirs and the
// bind-mounted certificates to ones deploy/make-certs.sh makes. The cluster it describes must come
// up over mutual TLS everywhere: etcd (https, client certificates required), 3 shards that
// register, 2 fronts that serve; nothing runs with --insecure.
import test from 'ava';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { balanced } from '../helpers/cluster.js';
import { freePort, kill, launch, waitReady, type Service } from '../helpers/service.js';
import { startDnsServer } from '../helpers/dns-server.js';

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));
type Json = Record<string, any>;
const processes: ChildProcess[] = [];
let dir: string;

test.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-compose-'));
});
test.after.always(async () => {
  for (const p of processes.reverse()) await kill(p);
  rmSync(dir, { recursive: true, force: true });
});

function envFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path.join(DEPLOY, file), 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

test('compose - the services run as processes: etcd, 3 shards that register, 2 fronts that serve', async (t) => {
  // Six processes and a balanced slot map over TLS: minutes on a busy two-core machine.
  t.timeout(5 * 60_000);
  const compose = parse(readFileSync(path.join(DEPLOY, 'docker-compose.yml'), 'utf8'), { merge: true }) as Json;
  const services = compose.services as Record<string, Json>;
  const cluster = Object.keys(services).filter((n) => !services[n]!.profiles);
  t.deepEqual(cluster, ['etcd', 'shard-0', 'shard-1', 'shard-2', 'front-1', 'front-2']);

  // Every host:port of the compose network gets a loopback port.
  const ports = new Map<string, number>();
  const port = async (name: string) => ports.get(name) ?? (ports.set(name, await freePort()), ports.get(name)!);
  const mapAll = async (service: string, args: string[]): Promise<string[]> => {
    const out: string[] = [];
    // One at a time: the same name must get the same port.
    for (const a of args) out.push(await map(service, a));
    return out;
  };
  const map = async (service: string, arg: string): Promise<string> => {
    let out = arg;
    for (const m of arg.matchAll(/(0\.0\.0\.0|[a-z][a-z0-9-]*):(\d+)/g)) {
      const host = m[1] === '0.0.0.0' ? service : m[1]!;
      out = out.replace(m[0], `127.0.0.1:${await port(`${host}:${m[2]}`)}`);
    }
    for (const v of services[service]!.volumes ?? []) {
      const [source, mount] = String(v).split(':');
      if (out !== mount && !out.startsWith(`${mount}/`)) continue;
      // A bind mount (./tls/… beside the compose file) reads the files make-certs wrote; a named volume is the service's own dir.
      out = source!.startsWith('./') ? path.join(dir, source!, out.slice(mount!.length)) : path.join(dir, service, out.slice(mount!.length));
    }
    return out;
  };
  // Sender checks ask a DNS server on loopback, not the machine's resolver.
  const dns = await startDnsServer();
  t.teardown(() => dns.close());
  const base = { ...envFile('mailcue.env.example'), MAILCUE_MASTER_KEY: 'b'.repeat(64), MAILCUE_HOST: '127.0.0.1', MAILCUE_LOG_LEVEL: 'warn', MAILCUE_POOL_THREADS: '1', MAILCUE_DNS_SERVERS: dns.address };
  const envOf = async (name: string) => {
    const env: Record<string, string> = { ...base, MAILCUE_DATA_DIR: path.join(dir, name), MAILCUE_OPS_PORT: String(await freePort()) };
    for (const [k, v] of Object.entries(services[name]!.environment ?? {})) env[k] = await map(name, String(v));
    return env;
  };

  // Mutual TLS everywhere, no plaintext escape hatch.
  t.false(JSON.stringify(compose).includes('--insecure'));
  for (const name of cluster.filter((n) => n !== 'etcd')) {
    t.regex(services[name]!.environment.MAILCUE_ETCD_ENDPOINTS, /^https:\/\//, name);
    for (const k of ['MAILCUE_TLS_CA', 'MAILCUE_TLS_CERT', 'MAILCUE_TLS_KEY']) t.truthy(services[name]!.environment[k], `${name} ${k}`);
  }
  t.true((services.etcd!.command as string[]).includes('--client-cert-auth'));
  execFileSync('sh', [path.join(DEPLOY, 'make-certs.sh'), path.join(dir, 'tls')], { stdio: 'ignore' });

  const etcdArgs = await mapAll('etcd', services.etcd!.command as string[]);
  t.is(etcdArgs[0], 'etcd');
  const etcd = spawn('etcd', etcdArgs.slice(1).map((a) => (a === '/etcd-data' ? path.join(dir, 'etcd') : a)), { stdio: 'ignore' });
  processes.push(etcd);
  const etcdPort = await port('etcd:2379');
  const tlsFile = (name: string) => readFileSync(path.join(dir, 'tls', name));
  const client = { ca: tlsFile('ca.crt'), cert: tlsFile('front.crt'), key: tlsFile('front.key') };
  for (let i = 0; i < 300 && (await etcdHealth(etcdPort, client)) !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  t.is(await etcdHealth(etcdPort, client), 200, 'etcd answers a client certificate of the CA');
  t.not(await etcdHealth(etcdPort, { ca: client.ca }), 200, 'etcd refuses a client without a certificate');

  for (const name of ['shard-0', 'shard-1', 'shard-2']) {
    const args = await mapAll(name, services[name]!.command as string[]);
    processes.push(launch(args, await envOf(name)));
  }
  const urls: string[] = [];
  for (const name of ['front-1', 'front-2']) {
    const env = { ...(await envOf(name)), MAILCUE_HTTP_PORT: String(await freePort()), MAILCUE_SMTP_PORT: String(await freePort()) };
    processes.push(launch(services[name]!.command as string[], env));
    urls.push(`http://127.0.0.1:${env.MAILCUE_HTTP_PORT}`);
  }
  for (const url of urls) await waitReady(url, processes.slice(1), 120_000);
  const operator = { env: { ...(await envOf('front-1')) }, cli: (args: string[]) => cli(args, operator.env) } as unknown as Service;
  const status = await balanced(operator, ['shard-0', 'shard-1', 'shard-2']);
  t.deepEqual(status.members.map((m: Json) => m.address), [0, 1, 2].map((i) => `127.0.0.1:${ports.get(`shard-${i}:7000`)}`));
  // The shards' compose healthcheck passes, over mutual TLS with the shard's own certificate.
  const [, , script, mode, target] = services['shard-0']!.healthcheck.test as string[];
  t.is((await run(process.execPath, [path.join(DEPLOY, '..', script!), mode!, `127.0.0.1:${ports.get('shard-0:7000')}`], await envOf('shard-0'))).code, 0, target);
});

/** GET /health on etcd over TLS with the given client material: the status, or 0 when the handshake fails. */
function etcdHealth(port: number, tls: { ca: Buffer; cert?: Buffer; key?: Buffer }): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/health', ...tls, timeout: 3000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

function cli(args: string[], env: Record<string, string>) {
  return run(process.execPath, [fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url)), ...args], env);
}
