// floor-uws: uWebSockets.js hello world, driven by the same HTTP generator and connection count as
// the HTTP scenarios: the most this machine serves over loopback HTTP with our HTTP library.
// floor-uws-shard: the same, each request making the one round trip DESIGN §1 fixes for a read,
// over Mailcue's own front→shard channel to one of two shard threads that answer at once with a
// one-message list's worth of JSON: the most a routed read can reach here before any work of Mailcue's.
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

function uwsFloor(name: string, kind: 'uws' | 'uws-shard', title: string): Scenario<Params> {
  return {
    name,
    title,
    full: { connections: 64, durationS: 10, warmupS: 2 },
    quick: { connections: 64, durationS: 2, warmupS: 1 },
    timeLimitS: (quick) => (quick ? 20 : 40),
    async run(ctx, p) {
      const port = await freePort();
      const server = await startFloorServer(name, kind, kind === 'uws' ? String(port) : `${port},${ctx.tmp}/${name}`);
      try {
        const load = { port, connections: p.connections, warmupS: 0, requests: [{ method: 'GET', path: '/' }] };
        await httpLoad({ ...load, durationS: p.warmupS });
        const m = await measure(() => [{ name, pid: server.pid }], () => httpLoad({ ...load, durationS: p.durationS }));
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
}

export const floorUws = uwsFloor('floor-uws', 'uws', 'uWebSockets.js hello world req/s (machine floor for HTTP)');
export const floorUwsShard = uwsFloor('floor-uws-shard', 'uws-shard', 'uWS + one round trip over the shard channel, nothing read: req/s (floor of a routed read)');
