// parked-waiters: RSS of all Mailcue processes with 0, 10,000 and 50,000 parked REST long-polls
// (5 per inbox on 10,000 inboxes), and the bytes each parked long-poll adds. Then, on a fresh
// Mailcue (freed heap would be reused and hide the growth), MCP watch_email calls answered as SSE,
// the agents' long-poll: 2,000 parked first (they pay the MCP path's one-time costs: compiled
// code, sessions), then 14,000 more, and the bytes each of those adds. A process can hold
// only as many sockets as its hard open-file limit allows (20,000 on the benchmark VM, and raising
// a hard limit needs CAP_SYS_RESOURCE), so when one process cannot hold them all, Mailcue runs as
// a cluster (`mailcue shard` × 2 + `mailcue front` × N) and the clients spread over processes too.
import { Generator } from '../lib/generator.js';
import { Mailcue } from '../lib/mailcue.js';
import { hardNofile, rssMb, sleep, waitFor } from '../lib/proc.js';
import { cpuShare, measure, type Scenario } from '../lib/scenario.js';

interface Params {
  inboxes: number;
  steps: number[];
  /** MCP watch_email calls parked on a fresh embedded Mailcue, over `mcpInboxes` inboxes: the first step warms up. */
  mcpSteps: [number, number];
  mcpInboxes: number;
}

/**
 * How long parked waiters sit before RSS is read: the garbage of parking them (request parsing,
 * JSON) is collected by then, as it is on a server whose long-polls wait their 30–60 s.
 */
const SETTLE_MS = 5000;

/** File descriptors a process keeps for everything but client sockets. */
const FD_RESERVE = 1500;
const LOCAL_ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8', '127.0.0.9'];

/** RSS in MiB per role (serve | front | shard) and in total: the median of 5 samples 200 ms apart. */
async function settledRss(mc: Mailcue): Promise<Record<string, number>> {
  const samples: Record<string, number>[] = [];
  for (let i = 0; i < 5; i++) {
    const byRole: Record<string, number> = { total: 0 };
    for (const { role, pid } of mc.roles) {
      const mb = rssMb(pid);
      byRole[role] = (byRole[role] ?? 0) + mb;
      byRole.total! += mb;
    }
    samples.push(byRole);
    await sleep(200);
  }
  samples.sort((a, b) => a.total! - b.total!);
  return Object.fromEntries(Object.entries(samples[2]!).map(([k, v]) => [k, Math.round(v * 10) / 10]));
}

/** RSS per parked MCP watch_email call (SSE), on a fresh embedded Mailcue, between its two steps. */
async function mcpBytesPerWaiter(log: (m: string) => void, p: Params): Promise<{ bytes: number; parked: number; rss_mb: Record<string, number>; layout: string }> {
  const [first, total] = p.mcpSteps;
  const mc = await Mailcue.start({ env: { MAILCUE_LOG_LEVEL: 'warn' } });
  const gen = await Generator.start('mcp-waiters', total + FD_RESERVE);
  try {
    const key = await mc.createAccount();
    const inboxes = await mc.createInboxes(key, 'm', p.mcpInboxes);
    const rss: Record<string, number> = { '0': (await settledRss(mc)).total! };
    let parked = 0;
    for (const step of [first, total]) {
      const r = await gen.call<{ errors: number; first_error: string | null }>('waitersPark', {
        ports: [mc.httpPort], key, inboxes, count: step - parked, first: parked, mcpShare: 1, timeoutS: 60, localAddresses: LOCAL_ADDRESSES, batch: 500, timeLimitMs: 40_000,
      }, 60_000);
      if (r.errors) throw new Error(`parking MCP calls: ${r.errors} errors, first: ${r.first_error}`);
      await waitFor(`${step} MCP calls parked`, async () => ((await mc.parkedWaiters()) >= step ? true : null), 30_000, 50);
      parked = step;
      await sleep(SETTLE_MS);
      rss[String(step)] = (await settledRss(mc)).total!;
      log(`${step} MCP watch_email calls parked: ${rss[String(step)]} MiB`);
    }
    await gen.call('waitersClose', null, 20_000);
    return { bytes: Math.round(((rss[String(total)]! - rss[String(first)]!) * 1024 * 1024) / (total - first)), parked: total, rss_mb: rss, layout: mc.layout };
  } finally {
    await gen.stop();
    await mc.stop();
  }
}

export const parkedWaiters: Scenario<Params> = {
  name: 'parked-waiters',
  title: 'RSS of all Mailcue processes with 0 / 10,000 / 50,000 parked REST long-polls; bytes per waiter',
  full: { inboxes: 10_000, steps: [10_000, 50_000], mcpSteps: [2000, 16_000], mcpInboxes: 1000 },
  quick: { inboxes: 1000, steps: [2000, 5000], mcpSteps: [1000, 4000], mcpInboxes: 500 },
  timeLimitS: (quick) => (quick ? 60 : 200),
  async run(ctx, p) {
    const max = Math.max(...p.steps);
    const budget = hardNofile() - FD_RESERVE;
    const fronts = max > budget ? Math.ceil(max / budget) : 0;
    const clients = Math.ceil(max / budget);
    ctx.log(`starting a fresh Mailcue (${fronts ? `${fronts} fronts` : 'embedded'})`);
    const mc = await Mailcue.start({ fronts, env: { MAILCUE_LOG_LEVEL: 'warn' } });
    const gens: Generator[] = [];
    try {
      const key = await mc.createAccount();
      ctx.log(`creating ${p.inboxes} inboxes`);
      const inboxes = await mc.createInboxes(key, 'p', p.inboxes);
      for (let i = 0; i < clients; i++) gens.push(await Generator.start(`waiters-${i}`, Math.ceil(max / clients) + FD_RESERVE));
      await sleep(SETTLE_MS);
      const byRole: Record<string, Record<string, number>> = { '0': await settledRss(mc) };
      const rss: Record<string, number> = { '0': byRole['0']!.total! };
      const cpu0 = (await Promise.all(gens.map((g) => g.cpu()))).reduce((a, b) => a + b, 0);
      let parked = 0;
      let parkS = 0;
      const m = await measure(() => mc.pids, async () => {
        for (const step of p.steps) {
          const t0 = performance.now();
          const add = step - parked;
          const per = Math.ceil(add / gens.length);
          const results = await Promise.all(gens.map((g, i) => g.call<{ opened: number; errors: number; first_error: string | null }>('waitersPark', {
            ports: mc.endpoints.map((e) => e.httpPort), key, inboxes, count: Math.min(per, add - i * per), first: parked + i * per, mcpShare: 0, timeoutS: 60,
            localAddresses: LOCAL_ADDRESSES, batch: 500, timeLimitMs: 40_000,
          }, 60_000)));
          const errors = results.reduce((s, r) => s + r.errors, 0);
          if (errors) throw new Error(`parking: ${errors} errors, first: ${results.find((r) => r.first_error)?.first_error}`);
          parked = step;
          await waitFor(`${step} waiters parked`, async () => ((await mc.parkedWaiters()) >= step ? true : null), 30_000, 50);
          parkS += (performance.now() - t0) / 1000;
          await sleep(SETTLE_MS);
          byRole[String(step)] = await settledRss(mc);
          rss[String(step)] = byRole[String(step)]!.total!;
          ctx.log(`${step} parked: ${rss[String(step)]} MiB`);
        }
      });
      const cpu1 = (await Promise.all(gens.map((g) => g.cpu()))).reduce((a, b) => a + b, 0);
      await Promise.all(gens.map((g) => g.call('waitersClose', null, 20_000)));
      await Promise.all(gens.splice(0).map((g) => g.stop()));
      await mc.stop();
      const mcp = await mcpBytesPerWaiter(ctx.log, p);
      const perWaiter = (from: number, to: number) => Math.round(((rss[String(to)]! - rss[String(from)]!) * 1024 * 1024) / (to - from));
      const steps = [0, ...p.steps];
      return {
        ops: max, duration_s: Math.round(parkS * 1000) / 1000, ops_per_s: Math.round((max / parkS) * 10) / 10, p50_ms: null, p90_ms: null, p99_ms: null, max_ms: null,
        peak_rss_mb: m.peak_rss_mb, client_cpu_share: cpuShare(cpu1 - cpu0, parkS), generator: `raw-socket REST waiters (node, ${gens.length} process${gens.length > 1 ? 'es' : ''})`,
        bytes_per_waiter: perWaiter(0, max), rss_mb_by_parked: rss, rss_mb_by_role: byRole,
        bytes_per_waiter_by_role: Object.fromEntries(Object.keys(byRole['0']!).filter((k) => k !== 'total').map((k) => [k, Math.round(((byRole[String(max)]![k]! - byRole['0']![k]!) * 1024 * 1024) / max)])),
        bytes_per_waiter_by_step: Object.fromEntries(steps.slice(1).map((s, i) => [`${steps[i]}→${s}`, perWaiter(steps[i]!, s)])),
        layout: mc.layout, mailcue_processes: mc.processes.length, hard_nofile: hardNofile(), inboxes: p.inboxes,
        bytes_per_mcp_waiter: mcp.bytes, mcp_waiters: mcp,
      };
    } finally {
      await Promise.all(gens.map((g) => g.stop()));
      await mc.stop();
    }
  },
};
