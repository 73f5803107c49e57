// The shard channels of one event loop (a front thread or the SMTP ingress thread): a static map,
// or in an etcd cluster the slot map it follows itself. Each loop has its own; none is shared.
import type { Config, ShardAddress } from '../config/config.js';
import type { Logger } from '../obs/logger.js';
import { Cluster } from './cluster.js';
import type { LatencyObserver } from './shard-client.js';
import { followSlotMap } from './slot-map-placement.js';
import { loadTls } from './tls.js';

/** Where a front finds its shards: a static map, or (cluster mode) the slot map in etcd. */
export type ShardSource = readonly ShardAddress[] | 'slot-map';

const SHARD_READY_TIMEOUT_MS = 30_000;

export async function connectShards(config: Config, shards: ShardSource, log: Logger, observe: LatencyObserver): Promise<Cluster> {
  const cluster = shards === 'slot-map' ? new Cluster((await followSlotMap(config, log))(observe)) : new Cluster(shards, observe, loadTls(config));
  await cluster.waitForReady(SHARD_READY_TIMEOUT_MS);
  return cluster;
}
