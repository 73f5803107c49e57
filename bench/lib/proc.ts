// Child processes of the bench: spawning (with a raised open-file limit when allowed), stopping by
// PID (SIGTERM, then SIGKILL), and reading CPU time and RSS from /proc.
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CLK_TCK = 100; // Linux USER_HZ; /proc/PID/stat times are in these ticks
export const CORES = os.availableParallelism();

export interface Child {
  readonly name: string;
  readonly proc: ChildProcess;
  readonly pid: number;
  /** Lines written to stdout/stderr, kept for error reports (last 200). */
  readonly output: string[];
  exited: boolean;
  exitCode: number | null;
  readonly exitPromise: Promise<number | null>;
}

/** Every child still running, so the runner can stop leftovers (by PID) on any exit path. */
const live = new Set<Child>();

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((c) => stop(c, 3000)));
}

/** The hard RLIMIT_NOFILE of this process, as /proc/self/limits tells it. */
export function hardNofile(): number {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  const hard = line ? line.trim().split(/\s+/)[4] : undefined;
  return hard === 'unlimited' ? 1 << 20 : Number(hard ?? 1024);
}

/** Spawns `cmd args` via bash with `ulimit -n` raised to the hard limit (raising the hard limit itself needs root's CAP_SYS_RESOURCE). */
export function start(name: string, cmd: string, args: readonly string[], opts: SpawnOptions & { nofile?: number } = {}): Child {
  const nofile = Math.min(opts.nofile ?? hardNofile(), hardNofile());
  const quoted = [cmd, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const proc = spawn('bash', ['-c', `ulimit -n ${nofile} 2>/dev/null; exec ${quoted}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...opts,
    env: { ...process.env, ...(opts.env ?? {}) },
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      output.push(line);
      if (output.length > 200) output.shift();
      if (process.env.BENCH_VERBOSE) console.error(`[${name}] ${line}`);
    }
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const child: Child = {
    name, proc, pid: proc.pid!, output, exited: false, exitCode: null,
    exitPromise: new Promise((resolve) => {
      proc.on('exit', (code, signal) => {
        live.delete(child);
        child.exited = true;
        child.exitCode = code ?? (signal ? 128 : null);
        resolve(child.exitCode);
      });
    }),
  };
  live.add(child);
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stop(child: Child | undefined, graceMs = 5000): Promise<void> {
  if (!child || child.exited) return;
  try {
    process.kill(child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, graceMs);
  await child.exitPromise;
  clearTimeout(timer);
}

/** utime+stime of a live process, in seconds (all its threads). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return 0;
  }
}

/** CPU seconds of this process's reaped children (cutime+cstime): how a finished child's CPU is read. */
export function reapedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / CLK_TCK;
}

/**
 * CPU seconds of this process's whole tree so far: itself, its reaped children (cutime+cstime) and
 * every live descendant (found through /proc/PID/stat's parent field). The machine's busy time
 * minus this is what other processes used (issue 37: no verdict above 0.2 cores of it).
 */
export function treeCpuSeconds(): number {
  const self = readFileSync('/proc/self/stat', 'utf8');
  const f = self.slice(self.lastIndexOf(')') + 2).split(' ');
  let total = (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / CLK_TCK;
  const parents = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const g = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(name), Number(g[1]));
      // A live descendant's own time; what its reaped children used is counted in its cutime+cstime.
      cpu.set(Number(name), (Number(g[11]) + Number(g[12]) + Number(g[13]) + Number(g[14])) / CLK_TCK);
    } catch {
      /* gone meanwhile */
    }
  }
  const mine = new Set<number>([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) if (!mine.has(pid) && mine.has(ppid)) { mine.add(pid); grew = true; }
  }
  for (const pid of mine) if (pid !== process.pid) total += cpu.get(pid) ?? 0;
  return total;
}

/** Busy CPU seconds of the whole machine so far (all cores, /proc/stat: everything but idle and iowait). */
export function machineBusySeconds(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = f;
  return (user + nice + system + irq + softirq + steal) / CLK_TCK;
}

/** Resident set size in MiB (VmRSS), 0 when the process is gone. */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples the RSS of named processes every `everyMs` and keeps each one's peak. */
export class RssSampler {
  private readonly peaks = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly procs: () => ReadonlyArray<{ name: string; pid: number }>, everyMs = 100) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  sample(): void {
    const sums = new Map<string, number>();
    for (const p of this.procs()) sums.set(p.name, (sums.get(p.name) ?? 0) + rssMb(p.pid));
    for (const [name, mb] of sums) if (mb > (this.peaks.get(name) ?? 0)) this.peaks.set(name, mb);
  }

  stop(): Record<string, number> {
    clearInterval(this.timer);
    this.sample();
    return Object.fromEntries([...this.peaks].map(([k, v]) => [k, Math.round(v * 10) / 10]));
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value or `timeoutMs` passes (then throws `what`). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs: number, everyMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch {
      /* not yet */
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** `git ARGS` in the checkout, trimmed; 'unknown' when git fails (results name their commit). */
export function git(...args: string[]): string {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** A bench run's clock, its log (seconds since start, on stderr) and a temp dir of its own. */
export function benchSession(name: string, width = 6): { started: number; log: (m: string) => void; tmp: string } {
  const started = Date.now();
  const log = (m: string) => console.error(`[${name} ${((Date.now() - started) / 1000).toFixed(1).padStart(width)} s] ${m}`);
  return { started, log, tmp: mkdtempSync(path.join(os.tmpdir(), `mailcue-bench-${name}-`)) };
}

/**
 * The entry of a standalone bench tool (bench/tools/*.ts): runs `main`, and however it ends (or on
 * SIGINT/SIGTERM) stops every child it started and removes its temp dir; a failure exits 1.
 */
export function runTool(name: string, tmp: string, main: () => Promise<void>): void {
  const cleanUp = async () => {
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      void cleanUp().finally(() => process.exit(130));
    });
  }
  main().then(cleanUp, async (err: unknown) => {
    console.error(`${name}: ${(err as Error).stack ?? String(err)}`);
    await cleanUp();
    process.exit(1);
  });
}

/** Ends a tool's report (load, wall time), writes it to `file` and prints it. */
export function writeReport(file: string, report: Record<string, unknown>, startedMs: number, log: (m: string) => void): void {
  report.load_after = os.loadavg().map((l) => Math.round(l * 100) / 100);
  report.wall_s = Math.round((Date.now() - startedMs) / 100) / 10;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  console.log(JSON.stringify(report, null, 2));
  log(`wrote ${path.relative(process.cwd(), file)}`);
}
