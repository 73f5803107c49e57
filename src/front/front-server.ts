// The front tier: the HTTP service (http-tier.ts) on one or more event loops sharing the port
// (MAILCUE_FRONT_THREADS, front-threads.ts), the SMTP ingress and the ops listener, all reaching
// the shards only through the Cluster's gRPC streams.
import type { Config, ShardAddress } from '../config/config.js';
import { startSmtpIngress, type SmtpIngress } from '../ingress/smtp-ingress.js';
import { reportBoundPorts, withBoundHttpPort } from '../obs/bound-ports.js';
import type { Logger } from '../obs/logger.js';
import { Metrics } from '../obs/metrics.js';
import { WorkPool } from '../pool/work-pool.js';
import { Cluster } from '../rpc/cluster.js';
import type { LatencyObserver } from '../rpc/shard-client.js';
import { followSlotMap } from '../rpc/slot-map-placement.js';
import { loadTls } from '../rpc/tls.js';
import type { Deps } from '../services/deps.js';
import { FrontThreads, type ShardSource } from './front-threads.js';
import { opsRoutes } from './http/ops-routes.js';
import { Router } from './http/router.js';
import { uWS, type TemplatedApp, type us_listen_socket } from './http/uws.js';
import { startHttpTier } from './http-tier.js';
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

export function listen(app: TemplatedApp, host: string, port: number): Promise<us_listen_socket> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => (socket ? resolve(socket) : reject(new Error(`cannot listen on ${host}:${port}`))));
  });
}

/**
 * The HTTP listener of the first front thread. Several threads share a port only when it is bound
 * by number (Linux does not share a port handed out for port 0), so with MAILCUE_FRONT_THREADS a
 * port 0 is first resolved to a free port.
 */
async function listenHttp(app: TemplatedApp, config: Config, shared: boolean): Promise<us_listen_socket> {
  if (!shared || config.httpPort !== 0) return listen(app, config.host, config.httpPort);
  const probe = await listen(uWS.App(), config.host, 0);
  const port = uWS.us_socket_local_port(probe);
  uWS.us_listen_socket_close(probe);
  return listen(app, config.host, port);
}

/** The shard channels of one front event loop, each thread its own. */
export async function connectShards(config: Config, shards: ShardSource, log: Logger, observe: LatencyObserver): Promise<Cluster> {
  const cluster = shards === 'slot-map' ? new Cluster((await followSlotMap(config, log))(observe)) : new Cluster(shards, observe, loadTls(config));
  await cluster.waitForReady(SHARD_READY_TIMEOUT_MS);
  return cluster;
}

export async function startFront(configured: Config, shards: ShardSource, log: Logger): Promise<Front> {
  const metrics = new Metrics();
  const cluster = await connectShards(configured, shards, log, (command, seconds, ok) => metrics.shardCall(command, seconds, ok));

  // Bound before the routes are added, so that a front started on port 0 knows its own URL when
  // they read it; until then a request finds no route (the service is not ready yet).
  const app = uWS.App();
  const listenSocket = await listenHttp(app, configured, configured.frontThreads > 1);
  const httpPort = uWS.us_socket_local_port(listenSocket);
  const config = withBoundHttpPort(configured, httpPort);
  const pool = new WorkPool(config.poolThreads, (err) => log.warn({ err }, 'pool worker failed and was replaced'), config.parseTimeoutMs);

  let smtp: SmtpIngress | null = null;
  const threads = config.frontThreads > 1 ? new FrontThreads(config) : null;
  const tier = startHttpTier(app, { config, cluster, pool, log, metrics, smtpPort: () => smtp?.port ?? 0, threads });
  const { deps } = tier;

  const opsApp = uWS.App();
  const opsRouter = new Router(opsApp, { onError: (ex, err) => sendRestError(ex, err, log) });
  opsRoutes(opsRouter, deps, metrics, () => threads?.metrics() ?? Promise.resolve([]));
  opsRouter.notFound();

  let opsSocket: us_listen_socket | null = null;
  try {
    opsSocket = await listen(opsApp, config.opsHost, config.opsPort);
    smtp = await startSmtpIngress(deps, metrics);
    await threads?.start(config, shards, httpPort, smtp.port, log);
  } catch (err) {
    uWS.us_listen_socket_close(listenSocket);
    if (opsSocket) uWS.us_listen_socket_close(opsSocket);
    await smtp?.close();
    throw err;
  }
  const opsPort = uWS.us_socket_local_port(opsSocket);
  const smtpPort = smtp.port;
  reportBoundPorts(config, { http: httpPort, smtp: smtpPort, ops: opsPort });
  log.info({ http_port: httpPort, smtp_port: smtpPort, ops: `${config.opsHost}:${opsPort}`, shards: cluster.shards.length, front_threads: config.frontThreads }, 'mailcue front ready');
  if (!config.adminToken) log.info('admin API off (set MAILCUE_ADMIN_TOKEN); create accounts with: npx mailcue admin create-account --plan growth');

  return {
    httpPort,
    smtpPort,
    opsPort,
    deps,
    // Graceful order: stop accepting, answer parked long-polls, end sessions, close the channels.
    async stop() {
      uWS.us_listen_socket_close(listenSocket);
      uWS.us_listen_socket_close(opsSocket);
      const smtpClosed = smtp!.close();
      await Promise.all([threads?.stop(), tier.stop()]);
      await smtpClosed;
      cluster.close();
      await pool.close();
    },
  };
}
