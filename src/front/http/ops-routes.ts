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
      metrics.oauthRecords.set(stats.reduce((n, s) => n + s.oauth_records, 0));
      metrics.openSessions.set(stats.reduce((n, s) => n + s.open_sessions, 0));
      const commands = new Map<string, number>();
      for (const s of stats) for (const [type, n] of Object.entries(s.commands)) commands.set(type, (commands.get(type) ?? 0) + n);
      for (const [type, n] of commands) metrics.shardCommands.labels(type).set(n);
      metrics.admittedCredentials.set(deps.admitted.size);
      ex.send(200, await metrics.registry.metrics(), metrics.registry.contentType);
    });
}
