// Operations endpoints. The public port answers /livez, /readyz and /healthz; the ops listener
// (MAILCUE_OPS_HOST:MAILCUE_OPS_PORT, loopback by default) answers /livez, /readyz and /metrics,
// whose per-route traffic and shard timings are not for the public (DESIGN §7).
import type { ShardStats } from '../../contract/results.js';
import type { Metrics, ThreadMetrics } from '../../obs/metrics.js';
import type { Deps } from '../../services/deps.js';
import type { Exchange } from './exchange.js';
import type { Router } from './router.js';

function readiness(deps: Deps) {
  return async (ex: Exchange) => {
    const { ready, reason } = await deps.cluster.readiness();
    ex.sendJson(ready ? 200 : 503, { success: ready, status: ready ? 'ok' : 'unavailable', shards: deps.cluster.shards.length, ...(reason ? { reason } : {}) });
  };
}

function live(ex: Exchange): void {
  ex.sendJson(200, { success: true, status: 'ok' });
}

/** Probes on the public port; /metrics is not one of them (it falls to the 404 route). */
export function healthRoutes(router: Router, deps: Deps): void {
  const ready = readiness(deps);
  router.add('get', '/livez', live).add('get', '/readyz', ready).add('get', '/healthz', ready);
}

/** The gauges of what this front event loop holds: admitted credentials and admission leases. */
export function setFrontGauges(metrics: Metrics, deps: Deps): void {
  metrics.admittedCredentials.set(deps.admitted.size);
  metrics.leasedAdmissions.set(deps.leases.spent);
  metrics.admissionLeases.set(deps.leases.size);
}

/** The ops listener's routes; `otherThreads` gives the other front threads' metrics to add in. */
export function opsRoutes(router: Router, deps: Deps, metrics: Metrics, otherThreads: () => Promise<ThreadMetrics[]> = async () => []): void {
  router
    .add('get', '/livez', live)
    .add('get', '/readyz', readiness(deps))
    .add('get', '/metrics', async (ex) => {
      const stats = await deps.cluster.broadcast({ type: 'shard.stats' }, { timeoutMs: 2000 }).catch(() => []);
      metrics.parkedWaiters.set(stats.reduce((n, s) => n + s.parked_waiters, 0));
      metrics.oauthRecords.set(stats.reduce((n, s) => n + s.oauth_records, 0));
      metrics.storedMessages.set(stats.reduce((n, s) => n + s.messages, 0));
      metrics.reclaimPending.set(stats.reduce((n, s) => n + (s.reclaim_pending ?? 0), 0));
      metrics.openSessions.set(stats.reduce((n, s) => n + s.open_sessions, 0));
      const commands = new Map<string, number>();
      for (const s of stats) for (const [type, n] of Object.entries(s.commands)) commands.set(type, (commands.get(type) ?? 0) + n);
      for (const [type, n] of commands) metrics.shardCommands.labels(type).set(n);
      setFrontGauges(metrics, deps);
      metrics.replicationLag.reset();
      for (const s of stats) for (const r of s.replication ?? []) metrics.replicationLag.labels(String(r.slot), r.follower).set(r.lag);
      ex.send(200, await metrics.text(await otherThreads()), metrics.contentType);
    });
}
