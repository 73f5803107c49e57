// `mailcue admin ...`: account administration straight over gRPC to the running shards (the
// embedded ones' unix sockets under the data dir, MAILCUE_SHARDS, or the slot map in etcd),
// mirroring /admin/v1.
import path from 'node:path';
import type { Config, ShardAddress } from '../config/config.js';
import { Cluster } from '../rpc/cluster.js';
import { loadTls } from '../rpc/tls.js';
import * as accounts from '../services/accounts.js';
import type { Args } from './args.js';

function shardMap(config: Config): ShardAddress[] {
  if (config.shards.length > 0) return [...config.shards];
  return Array.from({ length: config.shardCount }, (_, id) => ({ id, target: `unix:${path.join(config.dataDir, `shard-${id}.sock`)}`, bySlot: true }));
}

async function etcdCluster(config: Config): Promise<Cluster> {
  const { followSlotMap } = await import('../rpc/slot-map-placement.js');
  const { createLogger } = await import('../obs/logger.js');
  return new Cluster((await followSlotMap(config, createLogger('warn', 'admin')))(() => undefined));
}

export async function runAdmin(config: Config, args: Args): Promise<number> {
  const [action, ...rest] = args.positionals;
  const cluster = config.etcdEndpoints.length > 0 ? await etcdCluster(config) : new Cluster(shardMap(config), undefined, loadTls(config));
  try {
    await cluster.waitForReady(5000).catch(() => {
      throw new Error('cannot reach the shards: is `mailcue serve` running with the same MAILCUE_DATA_DIR (or MAILCUE_SHARDS)?');
    });
    let result: unknown;
    switch (action) {
      case 'create-account':
        result = await accounts.createAccount(cluster, accounts.requirePlan(args.flags.get('plan')), args.flags.get('name') ?? null);
        break;
      case 'set-plan':
        result = await accounts.setPlan(cluster, accounts.requireAccountId(rest[0]), accounts.requirePlan(rest[1] ?? args.flags.get('plan')));
        break;
      case 'rotate-key':
        result = await accounts.rotateKey(cluster, accounts.requireAccountId(rest[0]));
        break;
      default:
        console.error('usage: mailcue admin create-account --plan PLAN [--name NAME] | set-plan ACCOUNT_ID PLAN | rotate-key ACCOUNT_ID');
        return 2;
    }
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (err) {
    console.error(`mailcue admin: ${(err as Error).message}`);
    return 1;
  } finally {
    cluster.close();
  }
}
