// One front event loop's HTTP service: REST, admin, the agent-tool server, OAuth and the
// dashboard on a uWS app, with the caches of credentials admitted here, this loop's admission
// leases, and the account notices that keep both honest. A front runs one; with
// MAILCUE_FRONT_THREADS each of its threads runs one (front-threads.ts).
import type { Config } from '../config/config.js';
import type { Logger } from '../obs/logger.js';
import type { Metrics } from '../obs/metrics.js';
import type { WorkPool } from '../pool/work-pool.js';
import type { Cluster } from '../rpc/cluster.js';
import { NoticeListener } from '../rpc/notices.js';
import { loadTls } from '../rpc/tls.js';
import { AdmittedCredentials } from '../security/admitted-credentials.js';
import { AdmissionLeases } from '../security/admission-leases.js';
import type { Deps } from '../services/deps.js';
import { returnLeases } from './auth.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';
import type { FrontThreadLink } from './thread-link.js';
import { Cors } from './http/cors.js';
import { healthRoutes } from './http/ops-routes.js';
import { Router } from './http/router.js';
import type { TemplatedApp } from './http/uws.js';
import type { AgentToolEnv } from './mcp/request-pipeline.js';
import { SessionStore } from './mcp/sessions.js';
import { sseRoutes } from './mcp/sse-transport.js';
import { streamableHttpRoutes } from './mcp/streamable-http.js';
import { ClientMetadataFetcher } from './oauth/client-metadata.js';
import { flowRoutes } from './oauth/flow-routes.js';
import { metadataRoutes } from './oauth/metadata-routes.js';
import { accountRoutes } from './rest/account-routes.js';
import { adminRoutes } from './rest/admin-routes.js';
import { domainRoutes } from './rest/domain-routes.js';
import { eventsRoutes } from './rest/events-routes.js';
import { inboxRoutes } from './rest/inbox-routes.js';
import { keyRoutes } from './rest/key-routes.js';
import { sendRestError } from './rest/respond.js';
import { webhookRoutes } from './rest/webhook-routes.js';

const DRAIN_TIMEOUT_MS = 3_000;
/** Unspent admission leases go back to their shards within this long of ending. */
const LEASE_RETURN_INTERVAL_MS = 1_000;

export interface HttpTierOptions {
  /** With the app's bound port in its URLs. */
  config: Config;
  cluster: Cluster;
  pool: WorkPool;
  log: Logger;
  metrics: Metrics;
  /** The SMTP port the dashboard shows (the first front thread's ingress). */
  smtpPort: () => number;
  /** This loop's siblings in the process, with MAILCUE_FRONT_THREADS above 1. */
  threads: FrontThreadLink | null;
}

export interface HttpTier {
  readonly deps: Deps;
  /** After the app stopped listening: parked long-polls answered, sessions ended, leases returned. */
  stop(): Promise<void>;
}

export function startHttpTier(app: TemplatedApp, o: HttpTierOptions): HttpTier {
  const { config, cluster, log, metrics } = o;
  // Rotations, plan changes and ended sessions pushed by the shards; `sessions` is set below, before any request.
  let sessions: SessionStore | null = null;
  const notices = new NoticeListener(
    (notice) => {
      metrics.notices.labels(notice.kind).inc();
      // A session ended through another front (or by this one: then it is gone here already).
      if (notice.kind === 'session_closed') {
        sessions?.forget(notice.session_id);
        return;
      }
      // A scoped key rotated or deleted: its credentials leave the cache, its sessions end here.
      if (notice.kind === 'key_revoked') {
        admitted.keyRevoked(notice.key_id!, notice.generation);
        sessions?.closeKey(notice.key_id!);
        return;
      }
      admitted.changed(notice.account_id, notice.generation);
      if (notice.kind === 'rotated') sessions?.closeAccount(notice.account_id);
    },
    (shard) => admitted.forgetShard(shard),
    loadTls(config),
  );
  for (const c of cluster.placement.clients()) notices.ensure(c.shardId, c.target);
  const admitted = new AdmittedCredentials(
    (accountId) => {
      let shard;
      try {
        shard = cluster.shardOf(accountId);
      } catch {
        return null; // no owner right now: nothing is cached
      }
      notices.ensure(shard.shardId, shard.target);
      return shard.shardId;
    },
    (shard) => notices.listening(shard),
  );
  const leases = new AdmissionLeases();
  const deps: Deps = { config, cluster, pool: o.pool, log, admitted, leases };
  // Leases that ran out, were replaced, or whose credential left the admitted cache go back.
  const leaseReturns = setInterval(() => void returnLeases(deps, leases.takeFinished((hash) => !admitted.lookup(hash))), LEASE_RETURN_INTERVAL_MS);
  leaseReturns.unref();

  const router = new Router(app, {
    onError: (ex, err) => sendRestError(ex, err, log),
    observe: (ex, seconds) => metrics.requestAnswered(ex.method, ex.route, ex.status, seconds),
  });
  sessions = new SessionStore(deps, o.threads);
  const cors = new Cors(config);
  const capMs = config.agentConnectionMaxMs;
  const agentTools: AgentToolEnv = {
    deps, sessions, cors, capMs,
    // A long-poll answers before the connection cap, so no call is cut off without its result.
    maxWaitMs: capMs - Math.min(2000, Math.floor(capMs / 10)),
  };
  healthRoutes(router, deps);
  adminRoutes(router, deps);
  accountRoutes(router, deps, (accountId) => cluster.call({ type: 'account.sessions', accountId }));
  inboxRoutes(router, deps);
  domainRoutes(router, deps);
  webhookRoutes(router, deps);
  keyRoutes(router, deps);
  eventsRoutes(router, deps);
  streamableHttpRoutes(router, agentTools);
  sseRoutes(router, agentTools);
  metadataRoutes(router, config, cors);
  const clientMetadata = new ClientMetadataFetcher(config);
  flowRoutes(router, deps, cors, clientMetadata, o.threads?.authorizeWindow);
  dashboardRoutes(router, () => ({ mcpUrl: config.mcpUrl, smtpPort: o.smtpPort(), domains: config.domains }));
  router.notFound();

  return {
    deps,
    // Graceful order: answer parked long-polls, end sessions, give leases back.
    async stop() {
      await cluster.drainWaits(DRAIN_TIMEOUT_MS);
      // Let the answers of the drained long-polls reach their sockets.
      await new Promise((r) => setTimeout(r, 50));
      sessions!.stop();
      clearInterval(leaseReturns);
      await returnLeases(deps, leases.takeFinished(() => true));
      notices.close();
      clientMetadata.close();
    },
  };
}
