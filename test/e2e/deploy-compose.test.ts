// deploy/docker-compose.yml run as processes (no Docker here): each service's command, with the
// compose network's names and ports mapped to free loopback ports and volumes to temp dirs. The
// cluster it describes must come up: etcd, 3 shards that register, 2 fronts that serve.
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { balanced } from '../helpers/cluster.js';
import { freePort, kill, launch, waitReady, type Service } from '../helpers/service.js';

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
      const [, mount] = String(v).split(':');
      if (out.startsWith(mount!)) out = path.join(dir, service, out.slice(mount!.length));
    }
    return out;
  };
  const base = { ...envFile('mailcue.env.example'), MAILCUE_MASTER_KEY: 'b'.repeat(64), MAILCUE_HOST: '127.0.0.1', MAILCUE_LOG_LEVEL: 'warn', MAILCUE_POOL_THREADS: '1' };
  const envOf = async (name: string) => {
    const env: Record<string, string> = { ...base, MAILCUE_DATA_DIR: path.join(dir, name), MAILCUE_OPS_PORT: String(await freePort()) };
    for (const [k, v] of Object.entries(services[name]!.environment ?? {})) env[k] = await map(name, String(v));
    return env;
  };

  const etcdArgs = await mapAll('etcd', services.etcd!.command as string[]);
  t.is(etcdArgs[0], 'etcd');
  const etcd = spawn('etcd', etcdArgs.slice(1).map((a) => (a === '/etcd-data' ? path.join(dir, 'etcd') : a)), { stdio: 'ignore' });
  processes.push(etcd);
  const etcdUrl = `http://127.0.0.1:${await port('etcd:2379')}`;
  for (let i = 0; i < 300; i++) {
    if ((await fetch(`${etcdUrl}/health`).then((r) => r.ok, () => false))) break;
    await new Promise((r) => setTimeout(r, 100));
  }

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
  for (const url of urls) await waitReady(url, processes.slice(1), 60_000);
  const operator = { env: { ...(await envOf('front-1')) }, cli: (args: string[]) => cli(args, operator.env) } as unknown as Service;
  const status = await balanced(operator, ['shard-0', 'shard-1', 'shard-2']);
  t.deepEqual(status.members.map((m: Json) => m.address), [0, 1, 2].map((i) => `127.0.0.1:${ports.get(`shard-${i}:7000`)}`));
  // The shards' compose healthcheck passes.
  const [, , script, mode, target] = services['shard-0']!.healthcheck.test as string[];
  t.is((await run(process.execPath, [path.join(DEPLOY, '..', script!), mode!, `127.0.0.1:${ports.get('shard-0:7000')}`], {})).code, 0, target);
});

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
