// wake-latency: 10,000 long-polls parked on 10,000 inboxes (half REST waits, half MCP watch_email
// calls answered as SSE), then one mail each to a random 1,000 of those inboxes over SMTP; latency
// from the end of SMTP DATA (the final CRLF.CRLF written) to the waiter's answer arriving.
import { Generator } from '../lib/generator.js';
import type { WakeResult } from '../lib/waiters.js';
import { sample } from '../lib/random.js';
import { sleep, waitFor } from '../lib/proc.js';
import { cores, cpuShare, foreignCores, measure, type Scenario } from '../lib/scenario.js';

interface Params {
  waiters: number;
  mails: number;
  mcpShare: number;
  smtpConnections: number;
}

const LOCAL_ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];

export const wakeLatency: Scenario<Params> = {
  name: 'wake-latency',
  title: '10,000 parked waits (REST + MCP watch_email) on 10,000 inboxes; mail to 1,000 of them; end of DATA → answer',
  full: { waiters: 10_000, mails: 1000, mcpShare: 0.5, smtpConnections: 2 },
  quick: { waiters: 2000, mails: 200, mcpShare: 0.5, smtpConnections: 2 },
  timeLimitS: (quick) => (quick ? 30 : 120),
  async run(ctx, p) {
    const mc = ctx.mailcue;
    ctx.log(`creating ${p.waiters} inboxes`);
    const inboxes = await mc.createInboxes(ctx.key, 'w', p.waiters);
    const gen = await Generator.start('waiters', p.waiters + 2000);
    try {
      const c0 = await gen.cpu();
      const t0 = performance.now();
      const parked = await gen.call<{ opened: number; errors: number; first_error: string | null }>('waitersPark', {
        ports: [mc.httpPort], key: ctx.key, inboxes, count: p.waiters, first: 0, mcpShare: p.mcpShare, timeoutS: 60, localAddresses: LOCAL_ADDRESSES, batch: 500, timeLimitMs: 40_000,
      }, 60_000);
      if (parked.errors) throw new Error(`parking: ${parked.errors} errors, first: ${parked.first_error}`);
      const onServer = await waitFor('waiters parked', async () => {
        const n = await mc.parkedWaiters();
        return n >= p.waiters ? n : null;
      }, 30_000, 100);
      const parkS = (performance.now() - t0) / 1000;
      ctx.log(`${onServer} waiters parked in ${parkS.toFixed(1)} s`);
      await sleep(500);
      const targets = sample(inboxes, p.mails, 42);
      const c1 = await gen.cpu();
      const m = await measure(() => mc.pids, () => gen.call<WakeResult>('waitersWake', { smtpPort: mc.smtpPort, targets, connections: p.smtpConnections, timeLimitMs: 30_000 }, 45_000));
      const w = m.value;
      const c2 = await gen.cpu();
      const closed = await gen.call<Record<string, unknown>>('waitersClose', null, 20_000);
      // Hung-up clients must free their waiters (the front sends a cancel envelope).
      const left = await waitFor('waiters freed', async () => {
        const n = await mc.parkedWaiters();
        return n === 0 ? { n } : null;
      }, 10_000, 100).then((r) => r.n, async () => mc.parkedWaiters());
      return {
        ops: w.woken, duration_s: Math.round(w.duration_s * 1000) / 1000, ops_per_s: Math.round((w.woken / w.duration_s) * 10) / 10, ...w.latency, peak_rss_mb: m.peak_rss_mb,
        client_cpu_share: cpuShare(c2 - c1, w.duration_s), server_cpu_cores: cores(m.server_cpu_s, m.wall_s), foreign_cpu_cores: foreignCores(m, c2 - c1), generator: 'raw-socket waiters + SMTP sender (node, one process)',
        parked: onServer, park_s: Math.round(parkS * 10) / 10, mails: w.mails, accepted: w.accepted, missing: w.missing, rest: w.rest, mcp: w.mcp,
        waiter_states_at_close: closed, parked_after_close: left, client_cpu_s_parking: Math.round((c1 - c0) * 100) / 100,
      };
    } finally {
      await gen.stop();
    }
  },
};
