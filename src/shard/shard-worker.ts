// Worker-thread entry of an embedded shard: starts a ShardHost on a unix socket and reports back.
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config/config.js';
import { createLogger } from '../obs/logger.js';
import { startShardHost } from './shard-host.js';

interface ShardWorkerData {
  id: number;
  config: Config;
  listen: string;
  dataDir: string;
  masterKey: string;
}

const data = workerData as ShardWorkerData;
const log = createLogger(data.config.logLevel, `shard-${data.id}`);
process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));

startShardHost({ ...data, log }).then(
  (host) => {
    parentPort!.on('message', (msg: { type: string }) => {
      if (msg.type === 'stop') void host.stop().then(() => parentPort!.postMessage({ type: 'stopped' }));
    });
    parentPort!.postMessage({ type: 'ready' });
  },
  (err: Error) => {
    log.fatal({ err }, 'shard failed to start');
    parentPort!.postMessage({ type: 'failed', message: err.message });
  },
);
