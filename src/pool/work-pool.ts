// The only importer of piscina: one pool, sized from the machine, shared by MIME parsing and
// extraction. Every task has a time bound, so a pathological message cannot hold a thread forever.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { ParsedMessage } from '../contract/model.js';
import type { AttachmentContent } from '../mail/parse-mail.js';

export const PARSE_TIMEOUT_MS = 20_000;

export function warnWorkerError(err: unknown): void {
  process.emitWarning(`pool worker failed and was replaced: ${err instanceof Error ? err.message : String(err)}`);
}

export class WorkPool {
  private readonly pool: Piscina;

  /**
   * `onWorkerError`: a thread that fails outside a task (e.g. while loading its module on a
   * starved machine) is replaced by piscina; without a listener its 'error' event would end the
   * whole process.
   */
  constructor(threads = 0, onWorkerError: (err: unknown) => void = warnWorkerError) {
    // The shards and the front's event loop need CPU too: one parse thread per core at most.
    const size = threads > 0 ? threads : Math.max(1, availableParallelism());
    this.pool = new Piscina({
      filename: new URL('./tasks.js', import.meta.url).href,
      minThreads: size,
      maxThreads: size,
      idleTimeout: 60_000,
    });
    this.pool.on('error', onWorkerError);
  }

  parse(raw: Buffer): Promise<ParsedMessage> {
    return this.pool.run(raw, { name: 'parse', signal: AbortSignal.timeout(PARSE_TIMEOUT_MS) });
  }

  attachment(raw: Uint8Array, index: number): Promise<AttachmentContent | null> {
    return this.pool.run({ raw, index }, { name: 'attachment', signal: AbortSignal.timeout(PARSE_TIMEOUT_MS) });
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
