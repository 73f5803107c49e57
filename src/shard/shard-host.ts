// Hosts one shard: its actors, its LMDB env and its gRPC server. The same code runs inside a worker
// thread (embedded `mailcue serve`) and as its own process (`mailcue shard`).
import path from 'node:path';
import { ShardActors } from '../actors/shard-actors.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../obs/logger.js';
import { bindServer, createShardServer, endNoticeStreams } from '../rpc/shard-server.js';
import type { TlsMaterial } from '../rpc/tls.js';
import type { SlotGuard } from '../cluster/slot-guard.js';
import { slotOf } from '../cluster/slots.js';
import { MailcueError } from '../errors/registry.js';

export interface ShardHostOptions {
  id: number;
  config: Config;
  /** grpc-js bind target: "unix:/path.sock" or "127.0.0.1:7001". */
  listen: string;
  /** The shard's own LMDB directory. */
  dataDir: string;
  masterKey: string;
  log: Logger;
  /** Mutual TLS for a cluster shard; embedded shards on unix sockets have none. */
  tls?: TlsMaterial | null;
  /** Cluster mode: fences commands by slot and epoch (DESIGN.md §8). */
  guard?: SlotGuard;
}

export interface ShardHost {
  readonly port: number;
  readonly actors: ShardActors;
  stop(): Promise<void>;
}

export function shardDataDir(root: string, id: number): string {
  return path.join(root, `shard-${id}`);
}

export async function startShardHost(options: ShardHostOptions): Promise<ShardHost> {
  const actors = new ShardActors(options.id, options.config, options.dataDir, options.masterKey);
  const server = createShardServer(actors, options.log, options.guard);
  // A parked long-poll on a slot that moved away answers `moved`: the front re-parks it on the new owner.
  options.guard?.onLost((slots) => {
    actors.ctx.waiters.failWhere((address) => slots.has(slotOf(address)), new MailcueError('moved', 'The inbox moved to another shard', { retry_after_s: 1 }));
  });
  const port = await bindServer(server, options.listen, options.tls ?? null);
  options.log.info({ shard: options.id, listen: options.listen }, 'shard serving');
  return {
    port,
    actors,
    // Graceful order: stop taking calls, answer parked waiters, drain gRPC, flush LMDB.
    async stop() {
      await new Promise<void>((resolve) => {
        let done = false;
        const finish = () => { if (!done) { done = true; resolve(); } };
        endNoticeStreams(server);
        server.tryShutdown(finish);
        actors.ctx.waiters.drain();
        setTimeout(() => { server.forceShutdown(); finish(); }, 2000).unref();
      });
      await actors.close();
    },
  };
}
