// The metrics of a process's other event loops (front worker threads, the SMTP ingress thread),
// asked for at each scrape so that /metrics adds them up with the first thread's.
import type { Worker } from 'node:worker_threads';
import type { ThreadMetrics } from './metrics.js';

const METRICS_TIMEOUT_MS = 2_000;

export class WorkerMetrics {
  private nextId = 1;
  private readonly wanted = new Map<number, (json: ThreadMetrics | null) => void>();
  /**
   * Each worker's last answer: a scrape that a busy worker does not answer in time reuses it, so
   * its counters never seem to fall back (a Prometheus rate would read that as a reset); its
   * gauges are then as old as that answer.
   */
  private readonly last = new Map<Worker, ThreadMetrics>();
  /** Workers that exited: a scrape neither waits for them nor repeats their last answer. */
  private readonly gone = new Set<Worker>();

  /** Asks `worker` with `{ t: 'metrics', id }`; it answers through `answered`. */
  ask(worker: Worker): Promise<ThreadMetrics> {
    return new Promise<ThreadMetrics>((resolve) => {
      if (this.gone.has(worker)) {
        resolve([]);
        return;
      }
      const id = this.nextId++;
      const timer = setTimeout(() => done(null), METRICS_TIMEOUT_MS);
      const done = (json: ThreadMetrics | null) => {
        clearTimeout(timer);
        this.wanted.delete(id);
        resolve(json ?? this.last.get(worker) ?? []);
      };
      this.wanted.set(id, done);
      worker.postMessage({ t: 'metrics', id });
    });
  }

  /** A worker's answer; kept even when it comes after its scrape gave up: the next late scrape reuses it. */
  answered(worker: Worker, id: number, json: ThreadMetrics): void {
    this.last.set(worker, json);
    this.wanted.get(id)?.(json);
  }

  exited(worker: Worker): void {
    this.gone.add(worker);
    this.last.delete(worker);
  }
}
