// floor-uws: uWebSockets.js hello world, driven by the same HTTP generator and connection count as
// the HTTP scenarios: the most this machine serves over loopback HTTP with our HTTP library.
import { startFloorServer } from '../lib/floor-server.js';
import { httpLoad } from '../lib/http-load.js';
import { freePort } from '../lib/net-util.js';
import { stop } from '../lib/proc.js';
import { cores, cpuShare, foreignCores, measure, type Scenario } from '../lib/scenario.js';

interface Params {
  connections: number;
  durationS: number;
  warmupS: number;
}

export const floorUws: Scenario<Params> = {
  name: 'floor-uws',
  title: 'uWebSockets.js hello world req/s (machine floor for HTTP)',
  full: { connections: 64, durationS: 10, warmupS: 2 },
  quick: { connections: 64, durationS: 2, warmupS: 1 },
  timeLimitS: (quick) => (quick ? 20 : 40),
  async run(_ctx, p) {
    const port = await freePort();
    const server = await startFloorServer('floor-uws', 'uws', String(port));
    try {
      const load = { port, connections: p.connections, warmupS: 0, requests: [{ method: 'GET', path: '/' }] };
      await httpLoad({ ...load, durationS: p.warmupS });
      const m = await measure(() => [{ name: 'floor-uws', pid: server.pid }], () => httpLoad({ ...load, durationS: p.durationS }));
      const r = m.value;
      return {
        ops: r.requests, duration_s: r.duration_s, ops_per_s: r.ops_per_s, ...r.latency, peak_rss_mb: m.peak_rss_mb,
        client_cpu_share: cpuShare(r.client_cpu_s, r.duration_s), generator: r.generator, connections: p.connections,
        server_cpu_cores: cores(m.server_cpu_s, r.duration_s), foreign_cpu_cores: foreignCores(m, r.client_cpu_s), client_cpu_cores: cores(r.client_cpu_s ?? 0, r.duration_s), non_2xx: r.non_2xx, socket_errors: r.socket_errors,
      };
    } finally {
      await stop(server);
    }
  },
};
