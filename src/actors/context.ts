// What every actor on a shard shares: the shard's store, its waiters, configuration and the
// sealer for secrets. One context per shard; the shard is single-threaded, so no locks.
import type { Config } from '../config/config.js';
import type { Sealer } from '../security/sealer.js';
import type { ShardStore } from '../storage/shard-store.js';
import type { WaiterRegistry } from './waiters.js';

export interface ActorContext {
  readonly shardId: number;
  readonly config: Config;
  readonly store: ShardStore;
  readonly waiters: WaiterRegistry;
  readonly sealer: Sealer;
  now(): number;
}
