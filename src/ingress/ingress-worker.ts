// The SMTP ingress's own event loop (ingress-thread.ts starts it). A mail's bytes are read,
// dot-unstuffed, digested and packed for the shards here, and a 10 MB mail takes tens of
// milliseconds of that in single stretches: on the loop that serves HTTP, every tenant's REST and
// MCP answer waited behind another tenant's large mail (issue 33). This thread has its own shard
// channels and the process's parse pool; it answers metrics requests and stops when told.
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../obs/logger.js';
import { Metrics } from '../obs/metrics.js';
import { WorkPool } from '../pool/work-pool.js';
import { connectShards } from '../rpc/connect-shards.js';
import type { IngressMessage, IngressThreadData } from './ingress-thread.js';
import { startSmtpIngress } from './smtp-ingress.js';

const data = workerData as IngressThreadData;
const port = parentPort!;
const post = (m: IngressMessage) => port.postMessage(m);

async function run(): Promise<void> {
  const { config } = data;
  const log = createLogger(config.logLevel, 'smtp');
  const metrics = new Metrics(false);
  const cluster = await connectShards(config, data.shards, log, (command, seconds, ok) => metrics.shardCall(command, seconds, ok));
  const pool = new WorkPool(config.poolThreads, (err) => log.warn({ err }, 'pool worker failed and was replaced'), config.parseTimeoutMs);
  const smtp = await startSmtpIngress({ config, cluster, pool, log }, metrics);
  port.on('message', (m: IngressMessage) => {
    if (m.t === 'metrics') void metrics.json().then((json) => post({ t: 'metrics_json', id: m.id, json }));
    else if (m.t === 'stop') {
      void smtp.close().then(async () => {
        cluster.close();
        await pool.close();
        post({ t: 'stopped' });
        port.close();
      });
    }
  });
  post({ t: 'ready', port: smtp.port });
}

run().catch((err: Error) => {
  post({ t: 'failed', error: err.stack ?? err.message });
  // Its shard channels and pool would keep the thread alive: it ends (the front reports the error).
  process.exit(1);
});
