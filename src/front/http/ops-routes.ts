// Operations endpoints: /livez (the process answers), /readyz and /healthz (every shard answers
// its gRPC health check), /metrics (Prometheus).
import type { ShardStats } from '../../contract/results.js';
import type { Metrics } from '../../obs/metrics.js';
import type { Deps } from '../../services/deps.js';
import type { Router } from './router.js';

export function opsRoutes(router: Router, deps: Deps, metrics: Metrics): void {
  const ready = async (ex: import('./exchange.js').Exchange) => {
    const healthy = await deps.cluster.healthy();
    ex.sendJson(healthy ? 200 : 503, { success: healthy, status: healthy ? 'ok' : 'unavailable', shards: deps.cluster.shards.length });
  };
  router
    .add('get', '/livez', (ex) => ex.sendJson(200, { success: true, status: 'ok' }))
    .add('get', '/readyz', ready)
    .add('get', '/healthz', ready)
    .add('get', '/metrics', async (ex) => {
      const stats = await deps.cluster.broadcast<ShardStats>({ type: 'shard.stats' }, { timeoutMs: 2000 }).catch(() => []);
      metrics.parkedWaiters.set(stats.reduce((n, s) => n + s.parked_waiters, 0));
      ex.send(200, await metrics.registry.metrics(), metrics.registry.contentType);
    });
}
