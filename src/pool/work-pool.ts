// The only importer of piscina: the pools, sized from the machine, that run MIME parsing with
// extraction and sender authentication off the event loops that hold connections. Every parse
// task has a time bound, so a pathological message cannot hold a thread forever. Every pool is
// entered through a per-account fair queue (issue 33): one account's backlog waits behind its own
// work, and a task's bound starts when it runs, not while it waits behind another account's.
// Small mails and large ones parse on separate threads: a large one may run for its whole bound,
// so its threads run below the event loops and never take a small mail's thread.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ParsedMessage } from '../contract/model.js';
import type { AttachmentContent } from '../mail/parse-mail.js';
import type { SenderCheckInput, SenderCheckResult } from '../mail/sender-auth.js';
import { FairQueue } from './fair-queue.js';
import type { BatchOutcome } from './tasks.js';

export const PARSE_TIMEOUT_MS = 20_000;

export function warnWorkerError(err: unknown): void {
  process.emitWarning(`pool worker failed and was replaced: ${err instanceof Error ? err.message : String(err)}`);
}

/** At most this many mails per hand-off, each at most this large (a big mail goes alone). */
const BATCH_MAX = 8;
const BATCH_ITEM_MAX_BYTES = 64 * 1024;
/**
 * A mail larger than this parses on the large-mail threads. Below it, parsing is linear and
 * short (a 100 KB mail with an attachment: a few ms), so ordinary mail keeps full priority.
 */
const HEAVY_MAIL_BYTES = 256 * 1024;
/** Sender checks mostly wait on DNS: this many share one thread of the auth pool. */
const AUTH_TASKS_PER_THREAD = 16;
/** The key of work no account owns (attachments read back, mail whose owner is unknown). */
export const SHARED_KEY = '';

type Pending = { raw: Buffer; resolve: (m: ParsedMessage) => void; reject: (err: Error) => void };

/**
 * A piscina pool whose tasks each run within a time bound, entered through a per-account fair
 * queue: one account's backlog waits behind its own work, and a task's bound starts when it runs,
 * not while it waits behind another account's. One account holds at most all threads but one.
 */
class BoundedPool {
  private readonly pool: Piscina;
  private readonly queue: FairQueue;
  /** Settles once a thread has loaded the tasks module. */
  private warm: Promise<void> | null = null;

  constructor(module: string, size: number, lazy: boolean, onWorkerError: (err: unknown) => void, private readonly taskTimeoutMs: number) {
    this.pool = new Piscina({
      filename: new URL(module, import.meta.url).href,
      minThreads: lazy ? 0 : size,
      maxThreads: size,
      idleTimeout: 60_000,
    });
    this.pool.on('error', onWorkerError);
    this.queue = new FairQueue(size, Math.max(1, size - 1));
  }

  run<T>(account: string, task: unknown, name: string): Promise<T> {
    return this.queue.run(account, () => this.bounded<T>(task, name));
  }

  /**
   * The bound is a timer cleared when the task settles: an `AbortSignal.timeout` cannot be
   * cleared, so each one fired 20 s after its task, long done, on the front's event loop and built
   * a DOMException there (2.5 % of the loop while mail arrived).
   */
  private async bounded<T>(task: unknown, name: string): Promise<T> {
    // A thread still starting (module loading on a busy machine) is not the task's time.
    this.warm ??= (this.pool.run(null, { name: 'noop' }) as Promise<unknown>).then(() => undefined, () => undefined);
    await this.warm;
    const bound = new AbortController();
    const timer = setTimeout(() => {
      // piscina ends the thread that ran it and starts another: the next task waits for that one.
      this.warm = null;
      bound.abort(new Error(`The ${name} task ran over its ${this.taskTimeoutMs} ms bound`));
    }, this.taskTimeoutMs);
    return (this.pool.run(task, { name, signal: bound.signal }) as Promise<T>).finally(() => clearTimeout(timer));
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  get waiting(): number {
    return this.queue.waiting;
  }

  waitingOf(account: string): number {
    return this.queue.waitingOf(account);
  }

  destroy(): Promise<void> {
    return this.pool.destroy();
  }
}

export class WorkPool {
  /** Mails up to HEAVY_MAIL_BYTES, at the threads' normal priority. */
  private readonly quick: BoundedPool;
  /** Large mails, whose parse may take up to the bound: threads below the event loops (thread-priority.ts), started when one comes. */
  private heavyPool: BoundedPool | null = null;
  private authPool: { pool: Piscina; queue: FairQueue } | null = null;
  private readonly size: number;
  /** Small mails waiting for this turn's hand-off, by account. */
  private batches = new Map<string, Pending[]>();

  /**
   * `onWorkerError`: a thread that fails outside a task (e.g. while loading its module on a
   * starved machine) is replaced by piscina; without a listener its 'error' event would end the
   * whole process. `lazy`: no thread until a task comes (a pool used now and then, by a front
   * thread that does not parse mail).
   */
  constructor(threads = 0, private readonly onWorkerError: (err: unknown) => void = warnWorkerError, private readonly taskTimeoutMs = PARSE_TIMEOUT_MS, private readonly lazy = false) {
    // The shards and the front's event loop need CPU too: one parse thread per core at most.
    this.size = threads > 0 ? threads : Math.max(1, availableParallelism());
    this.quick = new BoundedPool('./tasks.js', this.size, lazy, onWorkerError, taskTimeoutMs);
    // A front that takes mail starts its auth thread now, not when the first mail is waiting.
    if (!lazy) this.startAuthPool();
  }

  /**
   * Small mails of one account that end in the same turn of the event loop cross to a pool
   * thread together: each hand-off wakes a sleeping thread, and at ingest rates that wake cost
   * the front's event loop more than the copy. A batch that fails as a whole (a thread lost, the
   * time bound) is parsed again one mail per task, so one hostile mail never leaves its
   * neighbours unparsed. `account` is the fair-queue key.
   */
  parse(raw: Buffer, account = SHARED_KEY): Promise<ParsedMessage> {
    if (raw.length > BATCH_ITEM_MAX_BYTES) return this.poolFor(raw).run(account, raw, 'parse');
    return new Promise((resolve, reject) => {
      const first = this.batches.size === 0;
      let batch = this.batches.get(account);
      if (!batch) this.batches.set(account, (batch = []));
      batch.push({ raw, resolve, reject });
      if (first) setImmediate(() => this.flushBatches());
      else if (batch.length >= BATCH_MAX) {
        this.batches.delete(account);
        this.flushBatch(account, batch);
      }
    });
  }

  /** The pool of large mails, started at the first one. */
  private heavy(): BoundedPool {
    return (this.heavyPool ??= new BoundedPool('./heavy-tasks.js', this.size, true, this.onWorkerError, this.taskTimeoutMs));
  }

  private poolFor(raw: Uint8Array): BoundedPool {
    return raw.length > HEAVY_MAIL_BYTES ? this.heavy() : this.quick;
  }

  private flushBatches(): void {
    const batches = this.batches;
    this.batches = new Map();
    for (const [account, batch] of batches) this.flushBatch(account, batch);
  }

  private flushBatch(account: string, batch: Pending[]): void {
    const alone = () => { for (const b of batch) this.quick.run<ParsedMessage>(account, b.raw, 'parse').then(b.resolve, b.reject); };
    if (batch.length === 1) return alone();
    this.quick.run<BatchOutcome[]>(account, batch.map((b) => b.raw), 'parseBatch').then(
      (outcomes) => outcomes.forEach((o, i) => (o.ok ? batch[i]!.resolve(o.message) : batch[i]!.reject(new Error(o.error)))),
      alone,
    );
  }

  /**
   * Sender authentication of one message on the auth pool. Its threads run many checks at once
   * (they wait on DNS); one account holds at most a quarter of them, so another's check always
   * finds a slot. Bounded by the check's own DNS deadline and signature limits, not aborted.
   */
  checkSender(input: SenderCheckInput, account = SHARED_KEY): Promise<SenderCheckResult> {
    const { pool, queue } = this.authPool ?? this.startAuthPool();
    return queue.run(account, () => pool.run(input, { name: 'senderCheck' }) as Promise<SenderCheckResult>);
  }

  private startAuthPool(): { pool: Piscina; queue: FairQueue } {
    const pool = new Piscina({
      filename: new URL('./auth-tasks.js', import.meta.url).href,
      minThreads: this.lazy ? 0 : 1,
      maxThreads: this.size,
      concurrentTasksPerWorker: AUTH_TASKS_PER_THREAD,
      idleTimeout: 60_000,
    });
    pool.on('error', this.onWorkerError);
    const slots = this.size * AUTH_TASKS_PER_THREAD;
    this.authPool = { pool, queue: new FairQueue(slots, Math.max(1, Math.floor(slots / 4))) };
    return this.authPool;
  }

  attachment(raw: Uint8Array, index: number, account = SHARED_KEY): Promise<AttachmentContent | null> {
    return this.poolFor(raw).run(account, { raw, index }, 'attachment');
  }

  /** Parse threads running. */
  get threads(): number {
    return this.quick.threads + (this.heavyPool?.threads ?? 0);
  }

  /** Tasks waiting for a parse thread, all accounts together. */
  get waiting(): number {
    return this.quick.waiting + (this.heavyPool?.waiting ?? 0);
  }

  /** Tasks of one account waiting for a parse thread (mails gathered into a batch not yet sent are not counted). */
  waitingOf(account: string): number {
    return this.quick.waitingOf(account) + (this.heavyPool?.waitingOf(account) ?? 0);
  }

  async close(): Promise<void> {
    await Promise.all([this.quick.destroy(), this.heavyPool?.destroy(), this.authPool?.pool.destroy()]);
  }
}
