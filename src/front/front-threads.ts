// Several front event loops on one HTTP port (MAILCUE_FRONT_THREADS): the first thread runs
// everything a front runs, SMTP and the ops listener included; each other one is a worker thread
// serving HTTP alone, with its own shard channels, caches and admission leases, on the same port
// (SO_REUSEPORT: the kernel spreads connections over the threads). They are fronts of one process:
// what a front keeps that is not a cache is handled here. Streamable HTTP sessions need nothing
// (the account's shard keeps them, sessions.ts); a legacy SSE session's answers are handed to the
// thread holding its stream; /authorize's per-IP window is the first thread's; /metrics adds up
// every thread's registry.
import { randomUUID } from 'node:crypto';
import { MessagePort, Worker } from 'node:worker_threads';
import type { Config } from '../config/config.js';
import type { Logger } from '../obs/logger.js';
import type { ThreadMetrics } from '../obs/metrics.js';
import { WorkerMetrics } from '../obs/thread-metrics.js';
import type { ShardSource } from '../rpc/connect-shards.js';
import type { AuthorizeWindow } from './oauth/flow-routes.js';
import { PerIpWindow } from './oauth/per-ip-window.js';
import type { SessionStream } from './mcp/session-stream.js';
import type { FrontThreadLink } from './thread-link.js';


/** What a worker thread is started with. */
export interface FrontThreadData {
  config: Config;
  /** A static shard map, or 'slot-map': the thread follows etcd's itself. */
  shards: ShardSource;
  index: number;
  /** The process's own id: holders name `<process>:<thread>`. */
  process: string;
  httpPort: number;
  smtpPort: number;
}

/** Between the first thread and a worker thread. */
export type ThreadMessage =
  | { t: 'ready' }
  | { t: 'failed'; error: string }
  | { t: 'frame'; thread: number; sessionId: string; json: string }
  | { t: 'ip'; id: number; ip: string }
  | { t: 'ip_wait'; id: number; wait: number }
  | { t: 'metrics'; id: number }
  | { t: 'metrics_json'; id: number; json: ThreadMetrics }
  | { t: 'stop' }
  | { t: 'stopped' };

/** A legacy SSE stream held by a sibling thread: frames go there; it ends when the session does. */
class SiblingStream implements SessionStream {
  private closed = false;
  private readonly handlers: (() => void)[] = [];

  constructor(private readonly send: (json: string) => void) {}

  get isClosed(): boolean {
    return this.closed;
  }

  message(value: unknown): void {
    this.messageText(JSON.stringify(value));
  }

  messageText(json: string): void {
    if (!this.closed) this.send(json);
  }

  onClose(handler: () => void): void {
    if (this.closed) handler();
    else this.handlers.push(handler);
  }

  /** The session ended (its holder's stream closed, or DELETE): calls in flight here abort. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.handlers.splice(0)) h();
  }
}

abstract class ThreadLinkBase implements FrontThreadLink {
  readonly holder: string;
  protected frameHandler: (sessionId: string, json: string) => void = () => undefined;

  constructor(protected readonly process: string, protected readonly index: number) {
    this.holder = `${process}:${index}`;
  }

  siblingOf(holder: string | undefined): number | null {
    if (!holder?.startsWith(`${this.process}:`)) return null;
    const thread = Number(holder.slice(this.process.length + 1));
    return Number.isInteger(thread) && thread !== this.index ? thread : null;
  }

  siblingStream(thread: number, sessionId: string): SessionStream {
    return new SiblingStream((json) => this.sendFrame(thread, sessionId, json));
  }

  onFrame(handler: (sessionId: string, json: string) => void): void {
    this.frameHandler = handler;
  }

  protected abstract sendFrame(thread: number, sessionId: string, json: string): void;
  abstract readonly authorizeWindow: AuthorizeWindow;
}

const STOP_TIMEOUT_MS = 8_000;

/** The first thread: starts the others, carries frames between them, keeps the per-IP window. */
export class FrontThreads extends ThreadLinkBase {
  readonly authorizeWindow: PerIpWindow;
  private readonly workers: Worker[] = [];
  private readonly workerMetrics = new WorkerMetrics();

  constructor(config: Config) {
    super(randomUUID(), 0);
    this.authorizeWindow = new PerIpWindow(config.authorizePerIpPerMinute);
  }

  /** Starts the worker threads serving HTTP on `httpPort` beside this one; resolves once each listens. */
  async start(config: Config, shards: ShardSource, httpPort: number, smtpPort: number, log: Logger): Promise<void> {
    try {
      for (let index = 1; index < config.frontThreads; index++) {
        const data: FrontThreadData = { config, shards: shards === 'slot-map' ? shards : [...shards], index, process: this.process, httpPort, smtpPort };
        this.workers.push(await this.spawn(data, log));
      }
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  private spawn(data: FrontThreadData, log: Logger): Promise<Worker> {
    const worker = new Worker(new URL('./front-thread.js', import.meta.url), { workerData: data });
    return new Promise((resolve, reject) => {
      worker.on('message', (m: ThreadMessage) => {
        if (m.t === 'ready') resolve(worker);
        else if (m.t === 'failed') reject(new Error(`front thread ${data.index}: ${m.error}`));
        else this.fromWorker(worker, m);
      });
      worker.once('error', (err) => {
        log.error({ err, thread: data.index }, 'front thread failed');
        reject(err);
      });
      worker.once('exit', (code) => {
        this.workerMetrics.exited(worker);
        reject(new Error(`front thread ${data.index} exited (${code})`));
      });
    });
  }

  private fromWorker(worker: Worker, m: ThreadMessage): void {
    switch (m.t) {
      case 'frame':
        this.sendFrame(m.thread, m.sessionId, m.json);
        return;
      case 'ip':
        worker.postMessage({ t: 'ip_wait', id: m.id, wait: this.authorizeWindow.take(m.ip) } satisfies ThreadMessage);
        return;
      case 'metrics_json':
        this.workerMetrics.answered(worker, m.id, m.json);
        return;
    }
  }

  protected sendFrame(thread: number, sessionId: string, json: string): void {
    if (thread === 0) this.frameHandler(sessionId, json);
    else this.workers[thread - 1]?.postMessage({ t: 'frame', thread, sessionId, json } satisfies ThreadMessage);
  }

  /** Every worker thread's metrics (prom-client JSON), for /metrics to add up with the first's. */
  metrics(): Promise<ThreadMetrics[]> {
    return Promise.all(this.workers.map((worker) => this.workerMetrics.ask(worker)));
  }

  /** Each worker thread stops as a front does (its parked long-polls answered), then exits. */
  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => new Promise<void>((resolve) => {
      const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ t: 'stop' } satisfies ThreadMessage);
    })));
  }
}

/** A worker thread's side: everything goes through the first thread. */
export class WorkerThreadLink extends ThreadLinkBase {
  private nextId = 1;
  private readonly waits = new Map<number, (wait: number) => void>();
  readonly authorizeWindow: AuthorizeWindow = {
    take: (ip) => new Promise<number>((resolve) => {
      const id = this.nextId++;
      this.waits.set(id, resolve);
      this.port.postMessage({ t: 'ip', id, ip } satisfies ThreadMessage);
    }),
  };

  constructor(private readonly port: MessagePort, data: FrontThreadData) {
    super(data.process, data.index);
  }

  /** A message from the first thread that is not a stop or a metrics request. */
  received(m: ThreadMessage): void {
    if (m.t === 'frame') this.frameHandler(m.sessionId, m.json);
    else if (m.t === 'ip_wait') {
      this.waits.get(m.id)?.(m.wait);
      this.waits.delete(m.id);
    }
  }

  protected sendFrame(thread: number, sessionId: string, json: string): void {
    this.port.postMessage({ t: 'frame', thread, sessionId, json } satisfies ThreadMessage);
  }
}
