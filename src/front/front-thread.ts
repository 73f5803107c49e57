// A worker thread of a front with MAILCUE_FRONT_THREADS above 1: the HTTP service on the shared
// port, with its own shard channels, caches and admission leases (front-threads.ts). It reports
// ready once it listens, answers the first thread's metrics requests, and stops when told.
import { parentPort, workerData } from 'node:worker_threads';
import { withBoundHttpPort } from '../obs/bound-ports.js';
import { createLogger } from '../obs/logger.js';
import { Metrics } from '../obs/metrics.js';
import { WorkPool } from '../pool/work-pool.js';
import { connectShards } from '../rpc/connect-shards.js';
import { listen } from './front-server.js';
import { WorkerThreadLink, type FrontThreadData, type ThreadMessage } from './front-threads.js';
import { setFrontGauges } from './http/ops-routes.js';
import { startHttpTier } from './http-tier.js';
import { uWS } from './http/uws.js';

const data = workerData as FrontThreadData;
const port = parentPort!;
const post = (m: ThreadMessage) => port.postMessage(m);

async function run(): Promise<void> {
  const config = withBoundHttpPort(data.config, data.httpPort);
  const log = createLogger(config.logLevel, `front-${data.index}`);
  const metrics = new Metrics(false);
  const cluster = await connectShards(config, data.shards, log, (command, seconds, ok) => metrics.shardCall(command, seconds, ok));
  // Parsing is the first thread's; this pool serves a REST attachment download now and then, and
  // starts its thread only then.
  const pool = new WorkPool(1, (err) => log.warn({ err }, 'pool worker failed and was replaced'), undefined, true);
  const link = new WorkerThreadLink(port, data);
  const app = uWS.App();
  const tier = startHttpTier(app, { config, cluster, pool, log, metrics, smtpPort: () => data.smtpPort, threads: link });
  const listenSocket = await listen(app, config.host, data.httpPort);

  port.on('message', (m: ThreadMessage) => {
    switch (m.t) {
      case 'metrics':
        setFrontGauges(metrics, tier.deps);
        void metrics.json().then((json) => post({ t: 'metrics_json', id: m.id, json }));
        return;
      case 'stop':
        uWS.us_listen_socket_close(listenSocket);
        void tier.stop().then(async () => {
          cluster.close();
          await pool.close();
          post({ t: 'stopped' });
          port.close();
        });
        return;
      default:
        link.received(m);
    }
  });
  post({ t: 'ready' });
}

run().catch((err: Error) => post({ t: 'failed', error: err.stack ?? err.message }));
