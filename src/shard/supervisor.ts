// Embedded mode: runs MAILCUE_SHARD_COUNT shards as worker threads, each serving gRPC on a unix
// socket under the data dir, and hands the front tier their shard map.
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Config, ShardAddress } from '../config/config.js';
import type { Logger } from '../obs/logger.js';
import { staticSlotOwners } from '../cluster/static-slots.js';
import { relocateToSlots } from '../storage/relocate.js';
import { shardDataDir } from './shard-host.js';

export interface EmbeddedShards {
  readonly shards: ShardAddress[];
  stop(): Promise<void>;
}

const WORKER_FILE = new URL('./shard-worker.js', import.meta.url);

export async function startEmbeddedShards(config: Config, masterKey: string, log: Logger): Promise<EmbeddedShards> {
  const workers: Worker[] = [];
  const shards: ShardAddress[] = [];
  let stopping = false;
  // Before any shard serves: records of an older layout (or another shard count) go to their slot's shard.
  const relocated = await relocateToSlots(config.dataDir, config.shardCount, staticSlotOwners(config.shardCount), (id) => shardDataDir(config.dataDir, id));
  if (relocated) log.info({ moved: relocated.moved, from: relocated.from, shards: config.shardCount }, 'data dir laid out by slot');
  await Promise.all(
    Array.from({ length: config.shardCount }, (_, id) => {
      const socket = path.join(config.dataDir, `shard-${id}.sock`);
      rmSync(socket, { force: true });
      const worker = new Worker(WORKER_FILE, {
        workerData: { id, config, listen: `unix:${socket}`, dataDir: shardDataDir(config.dataDir, id), masterKey },
      });
      workers.push(worker);
      shards.push({ id, target: `unix:${socket}`, bySlot: true });
      worker.on('exit', (code) => {
        if (stopping) return;
        // A shard is the single writer of its data; running without it would refuse its keys.
        log.fatal({ shard: id, code }, 'shard worker exited; stopping');
        process.exit(1);
      });
      return new Promise<void>((resolve, reject) => {
        worker.once('message', (msg: { type: string; message?: string }) => {
          if (msg.type !== 'ready') return reject(new Error(`shard ${id}: ${msg.message}`));
          // A socket is created 0777 less the umask (0700); connecting needs only write: 0600 (§7).
          chmodSync(socket, 0o600);
          resolve();
        });
        worker.once('error', reject);
      });
    }),
  );
  return {
    shards,
    async stop() {
      stopping = true;
      await Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((resolve) => {
              const timer = setTimeout(() => void w.terminate().then(() => resolve()), 5000);
              w.once('exit', () => { clearTimeout(timer); resolve(); });
              w.on('message', (msg: { type: string }) => { if (msg.type === 'stopped') void w.terminate(); });
              w.postMessage({ type: 'stop' });
            }),
        ),
      );
    },
  };
}
