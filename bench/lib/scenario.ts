// What a scenario is (data: a name, full and quick parameters, a time cap; and a run function) and
// what it reports, plus the measuring helper every scenario uses: peak RSS by process, server CPU.
import type { Mailcue } from './mailcue.js';
import { CORES, cpuSeconds, machineBusySeconds, RssSampler } from './proc.js';
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
  wall_s: number;
}

/** Runs `fn` while sampling the RSS of `procs` and reading the CPU time of `serverPids`. */
export async function measure<T>(procs: () => ReadonlyArray<{ name: string; pid: number }>, fn: () => Promise<T>): Promise<Measured<T>> {
  const sampler = new RssSampler(procs);
  const pids = procs().map((p) => p.pid);
  const cpu0 = pids.reduce((s, pid) => s + cpuSeconds(pid), 0);
  const machine0 = machineBusySeconds();
  const t0 = performance.now();
  try {
    const value = await fn();
    const wall = (performance.now() - t0) / 1000;
    return {
      value, peak_rss_mb: sampler.stop(), server_cpu_s: round(pids.reduce((s, pid) => s + cpuSeconds(pid), 0) - cpu0),
      machine_cpu_s: round(machineBusySeconds() - machine0), wall_s: round(wall),
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
 * CPU the rest of the machine used in the window (other sessions' jobs, the bench runner, the
 * kernel's share not charged to a process): a noise indicator; above ~0.2 cores, rerun.
 */
export function foreignCores(m: Measured<unknown>, clientCpuS: number | undefined): number {
  return Math.max(0, round((m.machine_cpu_s - m.server_cpu_s - (clientCpuS ?? 0)) / m.wall_s, 2));
}

export function cores(cpuS: number, seconds: number): number {
  return seconds > 0 ? round(cpuS / seconds, 2) : 0;
}
