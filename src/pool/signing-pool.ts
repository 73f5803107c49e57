// Webhook signing off the shard's event loop. One HMAC costs ~2 µs and a pool round trip ~90 µs
// (research/performance.md §1d), so deliveries are signed in batches: one task signs every
// notification that is due in a pump of the outbox.
import { Piscina } from 'piscina';
import type { SignRequest, SignedHeaders } from './sign-task.js';
import { warnWorkerError } from './work-pool.js';

export class SigningPool {
  private pool: Piscina | null = null;

  signBatch(requests: SignRequest[]): Promise<SignedHeaders[]> {
    if (requests.length === 0) return Promise.resolve([]);
    this.pool ??= new Piscina({
      filename: new URL('./sign-task.js', import.meta.url).href,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 30_000,
    });
    this.pool.on('error', warnWorkerError);
    return this.pool.run(requests);
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }
}
