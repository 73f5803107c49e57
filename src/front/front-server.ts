// The front tier: one uWebSockets.js app (REST, admin, ops; the agent-tool server and OAuth join
// it) and the SMTP ingress, both reaching the shards only through the Cluster's gRPC streams.
import type { Config, ShardAddress } from '../config/config.js';
import { MailcueError } from '../errors/registry.js';
import { startSmtpIngress, type SmtpIngress } from '../ingress/smtp-ingress.js';
import type { Logger } from '../obs/logger.js';
import { Metrics } from '../obs/metrics.js';
import { WorkPool } from '../pool/work-pool.js';
import { Cluster } from '../rpc/cluster.js';
import type { Deps } from '../services/deps.js';
import { opsRoutes } from './http/ops-routes.js';
import { Router } from './http/router.js';
import { uWS, type us_listen_socket } from './http/uws.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';
import { Cors } from './http/cors.js';
import { flowRoutes } from './oauth/flow-routes.js';
import { metadataRoutes } from './oauth/metadata-routes.js';
import { SessionStore } from './mcp/sessions.js';
import { sseRoutes } from './mcp/sse-transport.js';
import { streamableHttpRoutes, type AgentToolEnv } from './mcp/streamable-http.js';
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
  readonly deps: Deps;
  stop(): Promise<void>;
}

const SHARD_READY_TIMEOUT_MS = 30_000;
const DRAIN_TIMEOUT_MS = 3_000;

export async function startFront(config: Config, shards: readonly ShardAddress[], log: Logger): Promise<Front> {
  const metrics = new Metrics();
  const cluster = new Cluster(shards, (command, seconds, ok) => metrics.shardCall(command, seconds, ok));
  await cluster.waitForReady(SHARD_READY_TIMEOUT_MS);
  const pool = new WorkPool(config.poolThreads);
  const deps: Deps = { config, cluster, pool, log };

  const app = uWS.App();
  const router = new Router(app, {
    onError: (ex, err) => sendRestError(ex, err, log),
    observe: (ex, seconds) => metrics.requestAnswered(ex.method, ex.route, ex.status, seconds),
  });
  const sessions = new SessionStore(deps);
  const cors = new Cors(config);
  const capMs = config.agentConnectionMaxMs;
  const agentTools: AgentToolEnv = {
    deps, sessions, cors, capMs,
    // A long-poll answers before the connection cap, so no call is cut off without its result.
    maxWaitMs: capMs - Math.min(2000, Math.floor(capMs / 10)),
  };
  opsRoutes(router, deps, metrics);
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

  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(config.host, config.httpPort, (socket) => (socket ? resolve(socket) : reject(new Error(`cannot listen on ${config.host}:${config.httpPort}`))));
  });
  const httpPort = uWS.us_socket_local_port(listenSocket);
  let smtp: SmtpIngress;
  try {
    smtp = await startSmtpIngress(deps, metrics);
  } catch (err) {
    uWS.us_listen_socket_close(listenSocket);
    throw err;
  }
  log.info({ http_port: httpPort, smtp_port: smtp.port, shards: shards.length }, 'mailcue front ready');
  if (!config.adminToken) log.info('admin API off (set MAILCUE_ADMIN_TOKEN); create accounts with: npx mailcue admin create-account --plan growth');

  return {
    httpPort,
    smtpPort: smtp.port,
    deps,
    // Graceful order: stop accepting, answer parked long-polls, end sessions, close the channels.
    async stop() {
      uWS.us_listen_socket_close(listenSocket);
      const smtpClosed = smtp.close();
      await cluster.drainWaits(DRAIN_TIMEOUT_MS);
      // Let the answers of the drained long-polls reach their sockets.
      await new Promise((r) => setTimeout(r, 50));
      sessions.stop();
      await smtpClosed;
      cluster.close();
      await pool.close();
    },
  };
}
