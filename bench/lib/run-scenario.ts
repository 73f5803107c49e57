// Runs one scenario under its time cap and turns what it returns (or throws) into a result row.
import type { Context, Scenario, ScenarioResult } from './scenario.js';

async function withTimeout<T>(what: string, seconds: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} exceeded its ${seconds} s limit`)), seconds * 1000)))]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runScenario(s: Scenario, ctx: Context): Promise<ScenarioResult> {
  const params = ctx.quick ? s.quick : s.full;
  const t0 = Date.now();
  ctx.log(`▶ ${s.name} ${JSON.stringify(params)}`);
  let r: ScenarioResult;
  try {
    const out = await withTimeout(s.name, s.timeLimitS(ctx.quick), s.run(ctx, params));
    r = {
      name: s.name, ops_per_s: out.ops_per_s ?? 0,
      p50_ms: out.p50_ms ?? null, p90_ms: out.p90_ms ?? null, p99_ms: out.p99_ms ?? null, max_ms: out.max_ms ?? null,
      peak_rss_mb: out.peak_rss_mb ?? {}, client_cpu_share: out.client_cpu_share ?? null, generator: out.generator ?? '-',
      ...out, params,
    } as ScenarioResult;
  } catch (err) {
    const message = (err as Error).message ?? String(err);
    ctx.log(`✗ ${s.name}: ${message}`);
    r = { name: s.name, ops: 0, duration_s: 0, ops_per_s: 0, p50_ms: null, p90_ms: null, p99_ms: null, max_ms: null, peak_rss_mb: {}, client_cpu_share: null, generator: '-', error: message, params };
  }
  ctx.log(`  ${s.name}: ${r.skipped ? `skipped (${r.skipped})` : r.error ? 'error' : `${r.ops_per_s} ops/s, p99 ${r.p99_ms} ms`} [${((Date.now() - t0) / 1000).toFixed(1)} s]`);
  ctx.results.set(s.name, r);
  return r;
}

