// `node --import tsx bench/tools/reshard.ts [MESSAGES]`: the cost of online resharding. Starts etcd,
// 3 shards and a front on loopback, stores MESSAGES mails (default 100,000) over SMTP, then starts a
// 4th shard and waits until the controller has balanced the slots. Prints the rebalance time, the
// records and bytes moved, and per-slot move time and write pause (p50, p99, max) from the shards'
// "slot moved" log lines. Run it on an idle machine: it measures that machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, jsonRequest } from '../lib/net-util.js';
import { start, stopAll, type Child } from '../lib/proc.js';
import { runSmtpLoad } from '../lib/smtp-client.js';

const MESSAGES = Number(process.argv[2] ?? 100_000);
const INBOXES = 1000;
const MAIN = path.resolve('dist/cli/main.js');
const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-reshard-'));

interface Moved { slot: number; records: number; bytes: number; total_ms: number; paused_ms: number; to: string }

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function status(env: Record<string, string>): Promise<{ members: { id: string; primaries: number }[]; moves: unknown[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, 'admin', 'cluster', 'status', '--json'], { env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`status exited ${code}`))));
  });
}

async function main(): Promise<void> {
  const [client, peer, http, smtp, ops] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  start('etcd', 'etcd', ['--name', 'b', '--data-dir', path.join(dir, 'etcd'), '--listen-client-urls', `http://127.0.0.1:${client}`, '--advertise-client-urls', `http://127.0.0.1:${client}`,
    '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`, '--initial-cluster', `b=http://127.0.0.1:${peer}`]);
  const env: Record<string, string> = {
    MAILCUE_ETCD_ENDPOINTS: `http://127.0.0.1:${client}`, MAILCUE_MASTER_KEY: 'c'.repeat(64), MAILCUE_ADMIN_TOKEN: 'bench', MAILCUE_HOST: '127.0.0.1',
    MAILCUE_HTTP_PORT: String(http), MAILCUE_SMTP_PORT: String(smtp), MAILCUE_OPS_PORT: String(ops), MAILCUE_LOG_LEVEL: 'info',
    MAILCUE_PLANS_FILE: '', MAILCUE_DATA_DIR: dir,
  };
  await until('etcd', () => fetch(`http://127.0.0.1:${client}/health`).then((r) => r.ok, () => false), 30_000);
  // The controller logs one "slot moved" line per move; the child's own tail keeps too few.
  const moved: string[] = [];
  const shard = async (i: number) => {
    const child: Child = start(`shard-${i}`, process.execPath, [MAIN, 'shard', '--id', `shard-${i}`, '--listen', `127.0.0.1:${await freePort()}`, '--data', path.join(dir, `shard-${i}`)], { env: { ...process.env, ...env } });
    let rest = '';
    child.proc.stdout?.on('data', (b: Buffer) => {
      const lines = (rest + b.toString()).split('\n');
      rest = lines.pop()!;
      for (const l of lines) if (l.includes('"slot moved"')) moved.push(l);
    });
  };
  for (let i = 0; i < 3; i++) await shard(i);
  start('front', process.execPath, [MAIN, 'front'], { env: { ...process.env, ...env } });
  const base = `http://127.0.0.1:${http}`;
  await until('front ready', () => fetch(`${base}/readyz`).then((r) => r.ok, () => false), 120_000);
  await until('3 balanced', async () => (await status(env)).moves.length === 0, 300_000);

  const account = await jsonRequest('POST', `${base}/admin/v1/accounts`, { token: 'bench', body: { plan: 'enterprise' } });
  const key = (account.body as { data: { api_key: string } }).data.api_key;
  const recipients: string[] = [];
  for (let i = 0; i < INBOXES; i++) {
    await jsonRequest('POST', `${base}/v1/inboxes`, { token: key, body: { address: `r${i}@mailcue.test` } });
    recipients.push(`r${i}@mailcue.test`);
  }
  const load = await runSmtpLoad({ host: '127.0.0.1', port: smtp, connections: 8, total: MESSAGES, kind: 'small', recipients, tag: 'reshard', timeLimitMs: 3_600_000 });
  console.log(`stored ${load.accepted} messages at ${Math.round(load.ops_per_s)}/s`);

  moved.length = 0;
  const startedAt = performance.now();
  await shard(3);
  await until('4 balanced', async () => {
    const s = await status(env);
    return s.members.length === 4 && s.moves.length === 0 && s.members.every((m) => Math.abs(m.primaries - 256) <= 256 * 0.05);
  }, 3_600_000);
  const seconds = (performance.now() - startedAt) / 1000;
  const moves: Moved[] = moved.map((l) => JSON.parse(l) as Moved);
  const bytes = moves.reduce((n, m) => n + m.bytes, 0);
  console.log(JSON.stringify({
    messages: load.accepted, rebalance_3_to_4_s: Math.round(seconds * 10) / 10, slots_moved: moves.length,
    records_moved: moves.reduce((n, m) => n + m.records, 0), bytes_moved: bytes, bytes_per_s: Math.round(bytes / seconds),
    move_ms: { p50: pct(moves.map((m) => m.total_ms), 50), p99: pct(moves.map((m) => m.total_ms), 99), max: Math.max(...moves.map((m) => m.total_ms)) },
    write_pause_ms: { p50: pct(moves.map((m) => m.paused_ms), 50), p99: pct(moves.map((m) => m.paused_ms), 99), max: Math.max(...moves.map((m) => m.paused_ms)) },
  }, null, 2));
}

main().then(
  () => stopAll().then(() => rmSync(dir, { recursive: true, force: true })),
  (err: unknown) => {
    console.error(err);
    void stopAll().then(() => process.exit(1));
  },
);
