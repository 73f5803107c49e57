// The front tier: one uWebSockets.js app (REST, admin, ops; the agent-tool server and OAuth join
// it) and the SMTP ingress, both reaching the shards only through the Cluster's gRPC streams.
import type { Config, ShardAddress } from '../config/config.js';
import { MailcueError } from '../errors/registry.js';
import { startSmtpIngress, type SmtpIngress } from '../ingress/smtp-ingress.js';
import { reportBoundPorts, withBoundHttpPort } from '../obs/bound-ports.js';
import type { Logger } from '../obs/logger.js';
import { Metrics } from '../obs/metrics.js';
import { WorkPool } from '../pool/work-pool.js';
import { Cluster } from '../rpc/cluster.js';
import type { Placement } from '../rpc/placement.js';
import { loadTls } from '../rpc/tls.js';
import { NoticeListener } from '../rpc/notices.js';
import { AdmittedCredentials } from '../security/admitted-credentials.js';
import { AdmissionLeases } from '../security/admission-leases.js';
import type { Deps } from '../services/deps.js';
import { healthRoutes, opsRoutes } from './http/ops-routes.js';
import { Router } from './http/router.js';
import { uWS, type TemplatedApp, type us_listen_socket } from './http/uws.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';
import { Cors } from './http/cors.js';
import { returnLeases } from './auth.js';
import { flowRoutes } from './oauth/flow-routes.js';
import { metadataRoutes } from './oauth/metadata-routes.js';
import { SessionStore } from './mcp/sessions.js';
import { sseRoutes } from './mcp/sse-transport.js';
import type { AgentToolEnv } from './mcp/request-pipeline.js';
import { streamableHttpRoutes } from './mcp/streamable-http.js';
import { accountRoutes } from './rest/account-routes.js';
import { domainRoutes } from './rest/domain-routes.js';
import { eventsRoutes } from './rest/events-routes.js';
import { webhookRoutes } from './rest/webhook-routes.js';
import { adminRoutes } from './rest/admin-routes.js';
import { inboxRoutes } from './rest/inbox-routes.js';
import { sendRestError } from './rest/respond.js';

export interface Front {
  readonly httpPort: number;
  readonly smtpPort: number;
  /** The ops listener's port (/metrics, /livez, /readyz). */
  readonly opsPort: number;
  readonly deps: Deps;
  stop(): Promise<void>;
}

const SHARD_READY_TIMEOUT_MS = 30_000;
const DRAIN_TIMEOUT_MS = 3_000;
/** Unspent admission leases go back to their shards within this long of ending. */
const LEASE_RETURN_INTERVAL_MS = 1_000;

function listen(app: TemplatedApp, host: string, port: number): Promise<us_listen_socket> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => (socket ? resolve(socket) : reject(new Error(`cannot listen on ${host}:${port}`))));
  });
}

export async function startFront(configured: Config, shards: readonly ShardAddress[] | ((observe: (command: string, seconds: number, ok: boolean) => void) => Placement), log: Logger): Promise<Front> {
  const metrics = new Metrics();
  const observe = (command: string, seconds: number, ok: boolean) => metrics.shardCall(command, seconds, ok);
  // A static shard map, or (cluster mode) a placement that follows the slot map in etcd.
  const cluster = typeof shards === 'function' ? new Cluster(shards(observe)) : new Cluster(shards, observe, loadTls(configured));
  await cluster.waitForReady(SHARD_READY_TIMEOUT_MS);

  // Bound before the routes are added, so that a front started on port 0 knows its own URL when
  // they read it; until then a request finds no route (the service is not ready yet).
  const app = uWS.App();
  const listenSocket = await listen(app, configured.host, configured.httpPort);
  const httpPort = uWS.us_socket_local_port(listenSocket);
  const config = withBoundHttpPort(configured, httpPort);
  const pool = new WorkPool(config.poolThreads, (err) => log.warn({ err }, 'pool worker failed and was replaced'));
  // Rotations and plan changes pushed by the shards; `sessions` is set below, before any request.
  let sessions: SessionStore | null = null;
  const notices = new NoticeListener(
    (notice) => {
      metrics.notices.labels(notice.kind).inc();
      // A session ended through another front (or by this one: then it is gone here already).
      if (notice.kind === 'session_closed') {
        sessions?.forget(notice.session_id);
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
  const deps: Deps = { config, cluster, pool, log, admitted, leases };
  // Leases that ran out, were replaced, or whose credential left the admitted cache go back.
  const leaseReturns = setInterval(() => void returnLeases(deps, leases.takeFinished((hash) => !admitted.lookup(hash))), LEASE_RETURN_INTERVAL_MS);
  leaseReturns.unref();

  const router = new Router(app, {
    onError: (ex, err) => sendRestError(ex, err, log),
    observe: (ex, seconds) => metrics.requestAnswered(ex.method, ex.route, ex.status, seconds),
  });
  sessions = new SessionStore(deps);
  const cors = new Cors(config);
  const capMs = config.agentConnectionMaxMs;
  const agentTools: AgentToolEnv = {
    deps, sessions, cors, capMs,
    // A long-poll answers before the connection cap, so no call is cut off without its result.
    maxWaitMs: capMs - Math.min(2000, Math.floor(capMs / 10)),
  };
  healthRoutes(router, deps);
  adminRoutes(router, deps);
  accountRoutes(router, deps, (accountId) => cluster.call<number>({ type: 'account.sessions', accountId }));
  inboxRoutes(router, deps);
  domainRoutes(router, deps);
  webhookRoutes(router, deps);
  eventsRoutes(router, deps);
  streamableHttpRoutes(router, agentTools);
  sseRoutes(router, agentTools);
  metadataRoutes(router, config, cors);
  flowRoutes(router, deps, cors);
  // The SMTP port is read when the page is first served, after the ingress has started below.
  dashboardRoutes(router, () => ({ mcpUrl: config.mcpUrl, smtpPort: smtp.port, domains: config.domains }));
  router.add('any', '/*', (ex) => {
    throw new MailcueError('route_not_found', `No route for ${ex.method} ${ex.path}`);
  });

  const opsApp = uWS.App();
  const opsRouter = new Router(opsApp, { onError: (ex, err) => sendRestError(ex, err, log) });
  opsRoutes(opsRouter, deps, metrics);
  opsRouter.add('any', '/*', (ex) => {
    throw new MailcueError('route_not_found', `No route for ${ex.method} ${ex.path}`);
  });

  let opsSocket: us_listen_socket | null = null;
  let smtp: SmtpIngress;
  try {
    opsSocket = await listen(opsApp, config.opsHost, config.opsPort);
    smtp = await startSmtpIngress(deps, metrics);
  } catch (err) {
    uWS.us_listen_socket_close(listenSocket);
    if (opsSocket) uWS.us_listen_socket_close(opsSocket);
    throw err;
  }
  const opsPort = uWS.us_socket_local_port(opsSocket);
  reportBoundPorts(config, { http: httpPort, smtp: smtp.port, ops: opsPort });
  log.info({ http_port: httpPort, smtp_port: smtp.port, ops: `${config.opsHost}:${opsPort}`, shards: cluster.shards.length }, 'mailcue front ready');
  if (!config.adminToken) log.info('admin API off (set MAILCUE_ADMIN_TOKEN); create accounts with: npx mailcue admin create-account --plan growth');

  return {
    httpPort,
    smtpPort: smtp.port,
    opsPort,
    deps,
    // Graceful order: stop accepting, answer parked long-polls, end sessions, close the channels.
    async stop() {
      uWS.us_listen_socket_close(listenSocket);
      uWS.us_listen_socket_close(opsSocket);
      const smtpClosed = smtp.close();
      await cluster.drainWaits(DRAIN_TIMEOUT_MS);
      // Let the answers of the drained long-polls reach their sockets.
      await new Promise((r) => setTimeout(r, 50));
      sessions!.stop();
      await smtpClosed;
      clearInterval(leaseReturns);
      await returnLeases(deps, leases.takeFinished(() => true));
      notices.close();
      cluster.close();
      await pool.close();
    },
  };
}
