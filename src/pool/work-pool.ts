// The only importer of piscina: one pool, sized from the machine, shared by MIME parsing and
// extraction. Every task has a time bound, so a pathological message cannot hold a thread forever.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ParsedMessage } from '../contract/model.js';
import type { AttachmentContent } from '../mail/parse-mail.js';
import type { BatchOutcome } from './tasks.js';

export const PARSE_TIMEOUT_MS = 20_000;

export function warnWorkerError(err: unknown): void {
  process.emitWarning(`pool worker failed and was replaced: ${err instanceof Error ? err.message : String(err)}`);
}

/** At most this many mails per hand-off, each at most this large (a big mail goes alone). */
const BATCH_MAX = 8;
const BATCH_ITEM_MAX_BYTES = 64 * 1024;

export class WorkPool {
  private readonly pool: Piscina;
  private batch: { raw: Buffer; resolve: (m: ParsedMessage) => void; reject: (err: Error) => void }[] = [];

  /**
   * `onWorkerError`: a thread that fails outside a task (e.g. while loading its module on a
   * starved machine) is replaced by piscina; without a listener its 'error' event would end the
   * whole process.
   */
  /** `lazy`: no thread until a task comes (a pool used now and then, by a front thread that does not parse mail). */
  constructor(threads = 0, onWorkerError: (err: unknown) => void = warnWorkerError, private readonly taskTimeoutMs = PARSE_TIMEOUT_MS, lazy = false) {
    // The shards and the front's event loop need CPU too: one parse thread per core at most.
    const size = threads > 0 ? threads : Math.max(1, availableParallelism());
    this.pool = new Piscina({
      filename: new URL('./tasks.js', import.meta.url).href,
      minThreads: lazy ? 0 : size,
      maxThreads: size,
      idleTimeout: 60_000,
    });
    this.pool.on('error', onWorkerError);
  }

  /**
   * Small mails that end in the same turn of the event loop cross to a pool thread together: each
   * hand-off wakes a sleeping thread, and at ingest rates that wake cost the front's event loop
   * more than the copy. A batch that fails as a whole (a thread lost, the time bound) is parsed
   * again one mail per task, so one hostile mail never leaves its neighbours unparsed.
   */
  parse(raw: Buffer): Promise<ParsedMessage> {
    if (raw.length > BATCH_ITEM_MAX_BYTES) return this.parseOne(raw);
    return new Promise((resolve, reject) => {
      this.batch.push({ raw, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => this.flushBatch());
      else if (this.batch.length >= BATCH_MAX) this.flushBatch();
    });
  }

  private parseOne(raw: Uint8Array): Promise<ParsedMessage> {
    return this.run(raw, 'parse');
  }

  /**
   * Runs a task within its time bound. The bound is a timer cleared when the task settles: an
   * `AbortSignal.timeout` cannot be cleared, so each one fired 20 s after its task, long done, on
   * the front's event loop and built a DOMException there (2.5 % of the loop while mail arrived).
   */
  private run<T>(task: unknown, name: string): Promise<T> {
    const bound = new AbortController();
    const timer = setTimeout(() => bound.abort(new Error(`The ${name} task ran over its ${this.taskTimeoutMs} ms bound`)), this.taskTimeoutMs);
    return (this.pool.run(task, { name, signal: bound.signal }) as Promise<T>).finally(() => clearTimeout(timer));
  }

  private flushBatch(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    const alone = () => { for (const b of batch) this.parseOne(b.raw).then(b.resolve, b.reject); };
    if (batch.length === 1) return alone();
    this.run<BatchOutcome[]>(batch.map((b) => b.raw), 'parseBatch').then(
      (outcomes) => outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.message) : batch[i]!.reject(new Error(o.error)))),
      alone,
    );
  }

  attachment(raw: Uint8Array, index: number): Promise<AttachmentContent | null> {
    return this.run({ raw, index }, 'attachment');
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
