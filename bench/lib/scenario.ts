// What a scenario is (data: a name, full and quick parameters, a time cap; and a run function) and
// what it reports, plus the measuring helper every scenario uses: peak RSS by process, server CPU.
import type { Mailcue } from './mailcue.js';
import { CORES, cpuSeconds, machineBusySeconds, RssSampler, treeCpuSeconds } from './proc.js';
import { round, type Percentiles } from './stats.js';
import type { TlsFiles } from './tls.js';

export interface ScenarioResult extends Percentiles {
  name: string;
  ops: number;
  duration_s: number;
  ops_per_s: number;
  /** Peak RSS per process (summed over processes of one name), MiB. */
  peak_rss_mb: Record<string, number>;
  /** The load generator's CPU time over the machine's CPU time in the window (cores × duration). */
  client_cpu_share: number | null;
  generator: string;
  skipped?: string;
  error?: string;
  [extra: string]: unknown;
}

export interface Context {
  quick: boolean;
  /** The run's shared Mailcue: fresh at the start of the run, plan limits lifted. */
  mailcue: Mailcue;
  key: string;
  /** 1,000 (quick: fewer) inboxes that the SMTP scenarios fill and the read scenarios read. */
  readInboxes: string[];
  tls: TlsFiles | null;
  tmp: string;
  /** Results so far, by name. */
  results: Map<string, ScenarioResult>;
  log(message: string): void;
}

export interface Scenario<P = any> {
  name: string;
  /** One line for the README and the table. */
  title: string;
  full: P;
  quick: P;
  /** Hard cap on the scenario's wall time, seconds. */
  timeLimitS: (quick: boolean) => number;
  run(ctx: Context, params: P): Promise<Partial<ScenarioResult> & { ops: number; duration_s: number }>;
}

export interface Measured<T> {
  value: T;
  peak_rss_mb: Record<string, number>;
  server_cpu_s: number;
  /** CPU seconds the whole machine was busy (every process, kernel included). */
  machine_cpu_s: number;
  /** CPU seconds of the bench's own process tree (runner, generators, services). */
  tree_cpu_s: number;
  wall_s: number;
}

/** Runs `fn` while sampling the RSS of `procs` and reading the CPU time of `serverPids`. */
export async function measure<T>(procs: () => ReadonlyArray<{ name: string; pid: number }>, fn: () => Promise<T>): Promise<Measured<T>> {
  const sampler = new RssSampler(procs);
  const pids = procs().map((p) => p.pid);
  const cpu0 = pids.reduce((s, pid) => s + cpuSeconds(pid), 0);
  const machine0 = machineBusySeconds();
  const tree0 = treeCpuSeconds();
  const t0 = performance.now();
  try {
    const value = await fn();
    const wall = (performance.now() - t0) / 1000;
    return {
      value, peak_rss_mb: sampler.stop(), server_cpu_s: round(pids.reduce((s, pid) => s + cpuSeconds(pid), 0) - cpu0),
      machine_cpu_s: round(machineBusySeconds() - machine0), tree_cpu_s: round(treeCpuSeconds() - tree0), wall_s: round(wall),
    };
  } finally {
    sampler.stop();
  }
}

/** Client CPU share of the machine over a window: cpu_s / (cores × seconds). */
export function cpuShare(cpuS: number | undefined, seconds: number): number | null {
  if (cpuS === undefined || !(seconds > 0)) return null;
  return round(cpuS / (CORES * seconds), 3);
}

/**
 * CPU other processes used in the window: the machine's busy time (/proc/stat) minus the bench's
 * own process tree (runner, generators, services). Above 0.2 cores the run gives no verdict.
 * `_clientCpuS` is kept for callers; the generators are in the tree.
 */
export function foreignCores(m: Measured<unknown>, _clientCpuS?: number): number {
  return Math.max(0, round((m.machine_cpu_s - m.tree_cpu_s) / m.wall_s, 2));
}

export function cores(cpuS: number, seconds: number): number {
  return seconds > 0 ? round(cpuS / seconds, 2) : 0;
}
