// accounts: how the REST read rate holds as the number of accounts grows (issue 37). One Mailcue
// gets 10 accounts with 10 inboxes each, and the read of rest-get-latest (GET …/messages?limit=1,
// 64 keep-alive clients) runs over one inbox of every account, each request with its account's
// key; then it grows to 10,000 accounts (100,000 inboxes) and the same read runs over one inbox of
// each of them. Flat means the rate at 10,000 is at least 0.8× the rate at 10.
import { httpLoad, type HttpRequestSpec } from '../lib/http-load.js';
import { Mailcue } from '../lib/mailcue.js';
import { jsonRequest, mapLimit } from '../lib/net-util.js';
import { cores, cpuShare, foreignCores, measure, type Scenario } from '../lib/scenario.js';

interface Params {
  levels: number[];
  inboxesPerAccount: number;
  connections: number;
  durationS: number;
  warmupS: number;
}

interface Account {
  key: string;
  inbox: string;
}

export const accounts: Scenario<Params> = {
  name: 'accounts',
  title: '10 and 10,000 accounts × 10 inboxes: REST GET …/messages?limit=1 over one inbox of every account, each with its own key',
  full: { levels: [10, 10_000], inboxesPerAccount: 10, connections: 64, durationS: 10, warmupS: 3 },
  quick: { levels: [10, 200], inboxesPerAccount: 10, connections: 64, durationS: 2, warmupS: 1 },
  timeLimitS: (quick) => (quick ? 300 : 1200),
  async run(ctx, p) {
    const mc = await Mailcue.start({ nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) });
    try {
      const made: Account[] = [];
      const curve: Record<string, Record<string, number | null>> = {};
      let setupS = 0;
      for (const level of p.levels) {
        const t0 = performance.now();
        const add = level - made.length;
        const fresh = await mapLimit(add, 16, async (i) => {
          const n = made.length + i;
          const r = await jsonRequest('POST', `${mc.base}/admin/v1/accounts`, { token: mc.adminToken, body: { plan: 'growth', name: `a${n}` } });
          if (r.status !== 201) throw new Error(`POST /admin/v1/accounts → ${r.status}`);
          const key = r.body.data.api_key as string;
          const inboxes: string[] = [];
          for (let j = 0; j < p.inboxesPerAccount; j++) {
            const address = `a${n}-${j}@mailcue.test`;
            const c = await jsonRequest('POST', `${mc.base}/v1/inboxes`, { token: key, body: { address } });
            if (c.status !== 201) throw new Error(`POST /v1/inboxes → ${c.status}`);
            inboxes.push(address);
          }
          return { key, inbox: inboxes[n % inboxes.length]! };
        });
        made.push(...fresh);
        setupS += (performance.now() - t0) / 1000;
        ctx.log(`accounts: ${made.length} accounts, ${made.length * p.inboxesPerAccount} inboxes`);
        const requests: HttpRequestSpec[] = made.map((a) => ({ method: 'GET', path: `/v1/inboxes/${encodeURIComponent(a.inbox)}/messages?limit=1`, headers: { Authorization: `Bearer ${a.key}` } }));
        const load = { port: mc.httpPort, connections: p.connections, warmupS: 0, requests };
        await httpLoad({ ...load, durationS: p.warmupS });
        const leasedBefore = await mc.gauge('mailcue_leased_admissions');
        const m = await measure(() => mc.pids, () => httpLoad({ ...load, durationS: p.durationS }));
        const r = m.value;
        const leased = (await mc.gauge('mailcue_leased_admissions')) - leasedBefore;
        if (r.non_2xx) throw new Error(`accounts: ${r.non_2xx} answers were not 2xx at ${level} accounts`);
        curve[String(level)] = {
          ops_per_s: r.ops_per_s, p50_ms: r.latency.p50_ms, p99_ms: r.latency.p99_ms, server_cpu_us: r.requests ? Math.round((m.server_cpu_s / r.requests) * 1e6) : null,
          // Admissions spent from a front's lease: the rest cost a round trip to the account's shard.
          leased_admissions_share: r.requests ? Math.round((leased / r.requests) * 1000) / 1000 : null,
          client_cpu_share: cpuShare(r.client_cpu_s, r.duration_s), server_cpu_cores: cores(m.server_cpu_s, r.duration_s), foreign_cores: foreignCores(m),
        };
        ctx.log(`accounts ${level}: ${r.ops_per_s} req/s, ${curve[String(level)]!.server_cpu_us} µs CPU/req`);
      }
      const top = curve[String(p.levels[p.levels.length - 1])]!;
      return {
        ops: 0, duration_s: p.durationS * p.levels.length, ops_per_s: top.ops_per_s ?? 0, p50_ms: top.p50_ms, p99_ms: top.p99_ms, peak_rss_mb: {},
        client_cpu_share: top.client_cpu_share, generator: 'wrk, one request per account round-robin', curve, setup_s: Math.round(setupS),
        foreign_cpu_cores: Math.max(...Object.values(curve).map((c) => c.foreign_cores ?? 0)),
      };
    } finally {
      await mc.stop();
    }
  },
};
