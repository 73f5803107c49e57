// The front tier: the HTTP service (http-tier.ts) on one or more event loops sharing the port
// (MAILCUE_FRONT_THREADS, front-threads.ts), the SMTP ingress on a thread of its own
// (ingress-thread.ts) and the ops listener, all reaching the shards only through gRPC channels.
import type { Config } from '../config/config.js';
import { IngressThread } from '../ingress/ingress-thread.js';
import { reportBoundPorts, withBoundHttpPort } from '../obs/bound-ports.js';
import type { Logger } from '../obs/logger.js';
import { Metrics } from '../obs/metrics.js';
import { WorkPool } from '../pool/work-pool.js';
import type { Cluster } from '../rpc/cluster.js';
import { connectShards, type ShardSource } from '../rpc/connect-shards.js';
import type { Deps } from '../services/deps.js';
import { FrontThreads } from './front-threads.js';
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

export async function startFront(configured: Config, shards: ShardSource, log: Logger): Promise<Front> {
  const metrics = new Metrics();
  // The ingress thread boots (its modules, shard channels and parse pool) while this loop connects.
  // /readyz answers 200 once the routes are added below: by then the ingress takes mail too.
  const [connected, started] = await Promise.allSettled([
    connectShards(configured, shards, log, (command, seconds, ok) => metrics.shardCall(command, seconds, ok)),
    IngressThread.start(configured, shards, log),
  ]);
  const release = async () => {
    if (connected.status === 'fulfilled') connected.value.close();
    if (started.status === 'fulfilled') await started.value.stop();
  };
  if (connected.status === 'rejected' || started.status === 'rejected') {
    await release();
    throw connected.status === 'rejected' ? connected.reason : (started as PromiseRejectedResult).reason;
  }
  const cluster = connected.value;
  const smtp = started.value;

  // Bound before the routes are added, so that a front started on port 0 knows its own URL when
  // they read it; until then a request finds no route (the service is not ready yet).
  const app = uWS.App();
  const threads = configured.frontThreads > 1 ? new FrontThreads(configured) : null;
  const listenSocket = await listenHttp(app, configured, configured.frontThreads > 1).catch(async (err: unknown) => {
    await release();
    throw err;
  });
  const httpPort = uWS.us_socket_local_port(listenSocket);
  const config = withBoundHttpPort(configured, httpPort);
  // Parsing is the ingress thread's; this pool serves a REST attachment download now and then, and
  // starts its thread only then.
  const pool = new WorkPool(1, (err) => log.warn({ err }, 'pool worker failed and was replaced'), undefined, true);
  const smtpPort = smtp.port;
  const tier = startHttpTier(app, { config, cluster, pool, log, metrics, smtpPort: () => smtpPort, threads });
  const { deps } = tier;

  const opsApp = uWS.App();
  const opsRouter = new Router(opsApp, { onError: (ex, err) => sendRestError(ex, err, log) });
  opsRoutes(opsRouter, deps, metrics, async () => [...(await threads?.metrics() ?? []), await smtp.metrics()]);
  opsRouter.notFound();

  let opsSocket: us_listen_socket | null = null;
  try {
    opsSocket = await listen(opsApp, config.opsHost, config.opsPort);
    await threads?.start(config, shards, httpPort, smtpPort, log);
  } catch (err) {
    uWS.us_listen_socket_close(listenSocket);
    if (opsSocket) uWS.us_listen_socket_close(opsSocket);
    await tier.stop();
    await release();
    await pool.close();
    throw err;
  }
  const opsPort = uWS.us_socket_local_port(opsSocket);
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
      const smtpClosed = smtp.stop();
      await Promise.all([threads?.stop(), tier.stop()]);
      await smtpClosed;
      cluster.close();
      await pool.close();
    },
  };
}
