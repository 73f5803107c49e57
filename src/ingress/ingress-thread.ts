// The SMTP ingress runs on its own worker thread (ingress-worker.ts), beside the front's HTTP
// loop: a sender's large or hostile mail costs the ingress loop, not every tenant's REST and MCP
// answers. The front starts it, adds its metrics to /metrics and stops it. A thread that dies ends
// the process, as an uncaught error on the main thread would: its supervisor starts it again.
import { Worker } from 'node:worker_threads';
import type { Config } from '../config/config.js';
import type { Logger } from '../obs/logger.js';
import type { ThreadMetrics } from '../obs/metrics.js';
import { WorkerMetrics } from '../obs/thread-metrics.js';
import type { ShardSource } from '../rpc/connect-shards.js';

export interface IngressThreadData {
  config: Config;
  shards: ShardSource;
}

/** Between the front and its ingress thread. */
export type IngressMessage =
  | { t: 'ready'; port: number }
  | { t: 'failed'; error: string }
  | { t: 'metrics'; id: number }
  | { t: 'metrics_json'; id: number; json: ThreadMetrics }
  | { t: 'stop' }
  | { t: 'stopped' };

const STOP_TIMEOUT_MS = 8_000;

export class IngressThread {
  private readonly workerMetrics = new WorkerMetrics();
  private stopping = false;
  private alive = true;
  port = 0;

  private constructor(private readonly worker: Worker, log: Logger) {
    worker.on('message', (m: IngressMessage) => {
      if (m.t === 'metrics_json') this.workerMetrics.answered(worker, m.id, m.json);
    });
    worker.once('error', (err) => log.error({ err }, 'smtp ingress thread failed'));
    worker.once('exit', (code) => {
      this.alive = false;
      this.workerMetrics.exited(worker);
      if (this.stopping || this.port === 0) return;
      log.fatal({ code }, 'smtp ingress thread exited; the process ends so that its supervisor starts it again');
      process.exit(1);
    });
  }

  /** Starts the thread; resolves once it listens for SMTP. */
  static start(config: Config, shards: ShardSource, log: Logger): Promise<IngressThread> {
    const workerData: IngressThreadData = { config, shards: shards === 'slot-map' ? shards : [...shards] };
    const thread = new IngressThread(new Worker(new URL('./ingress-worker.js', import.meta.url), { workerData }), log);
    return new Promise((resolve, reject) => {
      thread.worker.on('message', (m: IngressMessage) => {
        if (m.t === 'ready') {
          thread.port = m.port;
          resolve(thread);
        } else if (m.t === 'failed') reject(new Error(`smtp ingress thread: ${m.error}`));
      });
      thread.worker.once('exit', (code) => reject(new Error(`smtp ingress thread exited (${code})`)));
    });
  }

  /** The thread's metrics (prom-client JSON), for /metrics to add up. */
  metrics(): Promise<ThreadMetrics> {
    return this.workerMetrics.ask(this.worker);
  }

  /** Stops accepting mail, lets mail in flight finish (within smtp-server's close timeout), then exits. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (!this.alive) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void this.worker.terminate(), STOP_TIMEOUT_MS);
      this.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage({ t: 'stop' } satisfies IngressMessage);
    });
  }
}
