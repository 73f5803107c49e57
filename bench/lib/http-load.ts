// HTTP load: wrk (C, one thread) when it is on the machine or can be installed from Debian's
// packages, else the Node fallback generator. Both replay the same prebuilt raw requests
// round-robin over N keep-alive connections. BENCH_HTTP_GEN=wrk|node forces one.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runInChild } from './generator.js';
import { reapedChildrenCpuSeconds } from './proc.js';
import { round, type Percentiles } from './stats.js';

export interface HttpRequestSpec {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpLoadParams {
  port: number;
  connections: number;
  durationS: number;
  warmupS: number;
  requests: HttpRequestSpec[];
}

export interface HttpLoadResult {
  generator: 'wrk' | 'node';
  requests: number;
  non_2xx: number;
  socket_errors: number;
  duration_s: number;
  ops_per_s: number;
  latency: Percentiles;
  /** CPU seconds the generator used during the measured run. */
  client_cpu_s?: number;
}

let wrkPath: string | null | undefined;

function which(cmd: string): string | null {
  try {
    return execFileSync('bash', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Finds wrk, installing Debian's package when missing and running as root. */
export function findWrk(): string | null {
  if (wrkPath !== undefined) return wrkPath;
  if (process.env.BENCH_HTTP_GEN === 'node') return (wrkPath = null);
  wrkPath = which('wrk');
  if (!wrkPath && process.getuid?.() === 0 && which('apt-get')) {
    console.error('bench: wrk not found; installing Debian package wrk');
    try {
      execFileSync('bash', ['-c', 'apt-get install -y -qq wrk >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq wrk >/dev/null 2>&1)'], { stdio: 'ignore', timeout: 180_000 });
    } catch {
      /* fall back to node */
    }
    wrkPath = which('wrk');
  }
  if (!wrkPath) console.error('bench: wrk unavailable; using the Node HTTP generator');
  return wrkPath;
}

export function rawRequest(port: number, r: HttpRequestSpec): string {
  const body = r.body ?? '';
  const headers = Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const length = r.body !== undefined ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : '';
  return `${r.method} ${r.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}${length}\r\n${body}`;
}

/** A Lua string literal of `s`'s UTF-8 bytes (long brackets would turn CRLF into LF). */
function luaString(s: string): string {
  let out = '"';
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${String(b).padStart(3, '0')}`; // \ddd: always 3 digits, so a following digit is not absorbed
  }
  return `${out}"`;
}

function luaScript(raw: string[]): string {
  const items = raw.map(luaString);
  return `local reqs = {\n${items.join(',\n')}\n}
local n = #reqs
local i = 0
request = function()
  i = i % n + 1
  return reqs[i]
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('BENCHJSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`;
}

function runWrk(wrk: string, port: number, connections: number, durationS: number, script: string): Promise<HttpLoadResult> {
  return new Promise((resolve, reject) => {
    const cpu0 = reapedChildrenCpuSeconds();
    const child = spawn(wrk, ['-t1', `-c${connections}`, `-d${durationS}s`, '--timeout', '10s', '-s', script, `http://127.0.0.1:${port}/`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const killer = setTimeout(() => child.kill('SIGKILL'), (durationS + 30) * 1000);
    child.on('exit', (code) => {
      clearTimeout(killer);
      const line = out.split('\n').find((l) => l.startsWith('BENCHJSON '));
      if (!line) return reject(new Error(`wrk exited ${code} without a summary: ${out.slice(-500)}`));
      const j = JSON.parse(line.slice('BENCHJSON '.length));
      const duration = j.duration_us / 1e6;
      const ms = (us: number) => round(us / 1000);
      resolve({
        generator: 'wrk', requests: j.requests, non_2xx: j.status, socket_errors: j.connect + j.read + j.write + j.timeout, duration_s: round(duration),
        ops_per_s: round(j.requests / duration, 1),
        latency: { p50_ms: ms(j.p50), p90_ms: ms(j.p90), p99_ms: ms(j.p99), max_ms: ms(j.max) },
        client_cpu_s: round(reapedChildrenCpuSeconds() - cpu0),
      });
    });
  });
}

/** A warm-up run (not reported), then the measured run. */
export async function httpLoad(p: HttpLoadParams): Promise<HttpLoadResult> {
  const raw = p.requests.map((r) => rawRequest(p.port, r));
  const wrk = findWrk();
  if (wrk) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-'));
    try {
      const script = path.join(dir, 'requests.lua');
      writeFileSync(script, luaScript(raw));
      if (p.warmupS > 0) await runWrk(wrk, p.port, p.connections, p.warmupS, script);
      return await runWrk(wrk, p.port, p.connections, p.durationS, script);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const params = { host: '127.0.0.1', port: p.port, connections: p.connections, requests: raw };
  if (p.warmupS > 0) await runInChild('http-load', 'httpLoad', { ...params, durationS: p.warmupS }, (p.warmupS + 30) * 1000);
  const { result, cpu_s } = await runInChild<HttpLoadResult>('http-load', 'httpLoad', { ...params, durationS: p.durationS }, (p.durationS + 30) * 1000);
  return { ...result, client_cpu_s: round(cpu_s) };
}
