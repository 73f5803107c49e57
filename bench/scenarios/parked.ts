// parked: what a parked long-poll costs as their number grows (issue 37): 10,000 and then 100,000
// parked REST waits, the RSS of all Mailcue processes per waiter at each level, and the wake p99
// at each level: mail to a few hundred probe inboxes, each with exactly one waiter of its own
// (parked beside the bulk), from the end of SMTP DATA to the waiter's answer. The bulk waits sit on
// other inboxes, so a probe's wake does the same work at every level. When one process cannot hold
// every socket (its open-file limit), Mailcue runs as a cluster, as parked-waiters does.
import { Generator } from '../lib/generator.js';
import { Mailcue } from '../lib/mailcue.js';
import { hardNofile, rssMb, sleep, waitFor } from '../lib/proc.js';
import { cores, foreignCores, measure, type Scenario } from '../lib/scenario.js';
import type { WakeResult } from '../lib/waiters.js';

interface Params {
  levels: number[];
  bulkInboxes: number;
  probes: number;
}

const SETTLE_MS = 5000;
const FD_RESERVE = 1500;
/**
 * Source addresses for the sockets. A connect from a chosen address binds an ephemeral port first,
 * and the kernel's search for a free one slows as that address's ports fill: with 8 addresses,
 * 100,000 sockets stalled a generator's loop for 15 s. 32 keep each below 3,200.
 */
const LOCAL_ADDRESSES = Array.from({ length: 32 }, (_, i) => `127.0.0.${i + 2}`);
/**
 * Waits last at most 60 s, so a level holds by sending each wait again as it times out: at any
 * moment some are between an answer and the next request. The level counts as parked at 99 %, and
 * bytes per waiter divide by the count read when the memory is.
 */
const PARKED_SHARE = 0.99;

async function totalRss(mc: Mailcue): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(mc.roles.reduce((s, { pid }) => s + rssMb(pid), 0));
    await sleep(200);
  }
  return samples.sort((a, b) => a - b)[2]!;
}

export const parked: Scenario<Params> = {
  name: 'parked',
  title: '10,000 and 100,000 parked REST long-polls: bytes per waiter (RSS, all processes) and wake p99 of probe inboxes',
  full: { levels: [10_000, 100_000], bulkInboxes: 10_000, probes: 300 },
  quick: { levels: [1000, 4000], bulkInboxes: 1000, probes: 100 },
  timeLimitS: (quick) => (quick ? 300 : 900),
  async run(ctx, p) {
    const max = Math.max(...p.levels) + p.probes * p.levels.length;
    const budget = hardNofile() - FD_RESERVE;
    const fronts = max > budget ? Math.ceil(max / budget) : 0;
    const clients = Math.ceil(max / budget);
    const mc = await Mailcue.start({ fronts, env: { MAILCUE_LOG_LEVEL: 'warn' } });
    const gens: Generator[] = [];
    try {
      const key = await mc.createAccount();
      ctx.log(`parked: creating ${p.bulkInboxes} inboxes (${mc.layout})`);
      const bulk = await mc.createInboxes(key, 'bulk', p.bulkInboxes);
      for (let i = 0; i < clients; i++) gens.push(await Generator.start(`parked-${i}`, Math.ceil(max / clients) + FD_RESERVE + p.probes * p.levels.length));
      await sleep(SETTLE_MS);
      const rss0 = await totalRss(mc);
      const curve: Record<string, Record<string, number | null>> = {};
      let bulkParked = 0;
      let probesParked = 0;
      const m = await measure(() => mc.pids, async () => {
        for (const [n, level] of p.levels.entries()) {
          const add = level - p.probes - bulkParked;
          const per = Math.ceil(add / gens.length);
          const parkedNow = await Promise.all(gens.map((g, i) => g.call<{ errors: number; first_error: string | null; reconnects: number; last_reconnect: string | null; loop_delay_max_ms: number }>('waitersPark', {
            ports: mc.endpoints.map((e) => e.httpPort), key, inboxes: bulk, count: Math.max(0, Math.min(per, add - i * per)), first: bulkParked + i * per, mcpShare: 0,
            timeoutS: 60, localAddresses: LOCAL_ADDRESSES, batch: 500, timeLimitMs: 150_000, repark: true,
          }, 180_000)));
          const errors = parkedNow.reduce((s, r) => s + r.errors, 0);
          const reconnects = parkedNow.reduce((s, r) => s + r.reconnects, 0);
          const clientStall = Math.max(...parkedNow.map((r) => r.loop_delay_max_ms));
          ctx.log(`parked ${level}: ${reconnects} re-parked waits sent again on a new connection (${parkedNow.find((r) => r.last_reconnect)?.last_reconnect ?? '-'}); generator loop delay max ${clientStall} ms`);
          if (errors) throw new Error(`parking: ${errors} errors, first: ${parkedNow.find((r) => r.first_error)?.first_error}`);
          bulkParked += Math.max(0, add);
          // Probe inboxes of this level, one waiter each, all held by the first generator.
          const probes = await mc.createInboxes(key, `probe${n}-`, p.probes);
          const pr = await gens[0]!.call<{ errors: number; first_error: string | null }>('waitersPark', {
            ports: [mc.endpoints[0]!.httpPort], key, inboxes: probes, count: p.probes, first: 0, mcpShare: 0, timeoutS: 60, localAddresses: LOCAL_ADDRESSES, batch: 500, timeLimitMs: 30_000,
          }, 45_000);
          if (pr.errors) throw new Error(`parking probes: ${pr.errors} errors, first: ${pr.first_error}`);
          probesParked += p.probes;
          const total = bulkParked + p.probes;
          await waitFor(`${PARKED_SHARE * 100} % of ${total} waiters parked`, async () => ((await mc.parkedWaiters()) >= total * PARKED_SHARE ? true : null), 120_000, 100);
          await sleep(SETTLE_MS);
          const rss = await totalRss(mc);
          const parkedAtRss = await mc.parkedWaiters();
          const wake = await gens[0]!.call<WakeResult>('waitersWake', { smtpPort: mc.endpoints[0]!.smtpPort, targets: probes, connections: 2, timeLimitMs: 30_000 }, 45_000);
          curve[String(level)] = {
            parked: parkedAtRss, rss_mb: Math.round(rss * 10) / 10, bytes_per_waiter: Math.round(((rss - rss0) * 1024 * 1024) / parkedAtRss),
            wake_p50_ms: wake.latency.p50_ms, wake_p99_ms: wake.latency.p99_ms, wake_p99_us: wake.latency.p99_ms === null ? null : Math.round(wake.latency.p99_ms * 1000), woken: wake.woken, missing: wake.missing,
            reconnects, generator_loop_delay_max_ms: clientStall,
          };
          ctx.log(`parked ${level}: ${curve[String(level)]!.bytes_per_waiter} B/waiter, wake p99 ${wake.latency.p99_ms} ms (${wake.woken}/${p.probes})`);
        }
      });
      await Promise.all(gens.map((g) => g.call('waitersClose', null, 30_000)));
      const top = curve[String(p.levels[p.levels.length - 1])]!;
      return {
        ops: bulkParked + probesParked, duration_s: m.wall_s, ops_per_s: 0, p50_ms: top.wake_p50_ms, p99_ms: top.wake_p99_ms, peak_rss_mb: m.peak_rss_mb, client_cpu_share: null,
        generator: `raw-socket REST waiters (node, ${gens.length} process${gens.length > 1 ? 'es' : ''})`, server_cpu_cores: cores(m.server_cpu_s, m.wall_s), foreign_cpu_cores: foreignCores(m),
        curve, layout: mc.layout, rss_mb_empty: Math.round(rss0 * 10) / 10, hard_nofile: hardNofile(),
      };
    } finally {
      await Promise.all(gens.map((g) => g.stop()));
      await mc.stop();
    }
  },
};
