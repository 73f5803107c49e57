// The cluster side of the CLI (MAILCUE_ETCD_ENDPOINTS set): `mailcue shard` joins as a member,
// `mailcue admin cluster status|drain` read and mark etcd. (`mailcue front` follows the slot map
// through src/rpc/slot-map-placement.ts.)
import path from 'node:path';
import { requestDrain } from '../cluster/drain.js';
import { connectEtcd, type EtcdHandle } from '../cluster/etcd.js';
import { MEMBER_ID } from '../cluster/members.js';
import { formatClusterStatus, readClusterStatus } from '../cluster/status.js';
import { ConfigError, type Config } from '../config/config.js';
import { assertListenAllowed, loadTls, type TlsMaterial } from '../rpc/tls.js';
import { resolveMasterKey } from '../security/sealer.js';
import { prepareDataDir } from '../storage/data-dir.js';
import type { Args } from './args.js';

const DRAIN_POLL_MS = 500;

function etcdFor(config: Config, tls: TlsMaterial | null): EtcdHandle {
  return connectEtcd({ endpoints: config.etcdEndpoints, prefix: config.etcdPrefix, tls });
}

export async function clusterShard(config: Config, flags: Map<string, string>) {
  const id = flags.get('id') ?? '';
  const listen = flags.get('listen');
  if (!MEMBER_ID.test(id) || !listen) throw new ConfigError('mailcue shard needs --id NAME (letters, digits, "_", "." or "-") and --listen HOST:PORT');
  const tls = loadTls(config);
  assertListenAllowed(listen, tls, flags.has('insecure'));
  // Slots move between shards with their sealed API keys: every shard must open them.
  if (!config.masterKey) throw new ConfigError('a cluster shard needs MAILCUE_MASTER_KEY, the same on every shard (slots move between them with their sealed keys)');
  const dataDir = path.resolve(flags.get('data') ?? path.join(config.dataDir, `shard-${id}`));
  // 0700, and files 0600 even in a directory made by someone else (a container volume): DESIGN §7.
  prepareDataDir(dataDir);
  const { createLogger } = await import('../obs/logger.js');
  const log = createLogger(config.logLevel, `shard-${id}`);
  const { startClusterShard } = await import('../shard/cluster-shard.js');
  const { GrpcSlotMover } = await import('../shard/slot-mover.js');
  const { slotEndpoint, ownedOnly } = await import('../shard/slot-endpoint.js');
  const masterKey = resolveMasterKey(config.masterKey, path.dirname(dataDir));
  return startClusterShard({
    id, config, listen, advertise: flags.get('advertise') ?? listen, dataDir, masterKey, log, tls,
    runner(host, view, guard, locks) {
      host.actors.slotCommands = slotEndpoint(host.actors, guard, view, locks);
      host.actors.broadcastFilter = ownedOnly(guard);
      // One line per move: how long it took, how much it copied, how long writes to the slot waited.
      return new GrpcSlotMover(view, tls, (m) => log.info(m, 'slot moved'));
    },
  });
}

/** `mailcue admin cluster status [--json]` and `mailcue admin cluster drain ID [--no-wait]`. */
export async function runClusterAdmin(config: Config, args: Args): Promise<number> {
  const [, action, id] = args.positionals;
  if (config.etcdEndpoints.length === 0) {
    console.error('mailcue admin cluster: set MAILCUE_ETCD_ENDPOINTS to the cluster\'s etcd');
    return 2;
  }
  const etcd = etcdFor(config, loadTls(config));
  try {
    switch (action) {
      case 'status': {
        const status = await readClusterStatus(etcd.ns, config.replicas);
        console.log(args.flags.has('json') ? JSON.stringify(status) : formatClusterStatus(status));
        return 0;
      }
      case 'drain': {
        if (!id || !MEMBER_ID.test(id)) throw new ConfigError('usage: mailcue admin cluster drain MEMBER_ID [--no-wait]');
        const before = await readClusterStatus(etcd.ns, config.replicas);
        if (!before.members.some((m) => m.id === id)) throw new ConfigError(`no member ${id} in the cluster`);
        await requestDrain(etcd.ns, id);
        if (args.flags.has('no-wait')) return 0;
        // Until the member holds no copy at all and every slot it held has its full copy count, in
        // sync, on other members: then it can stop without a slot losing a copy.
        const held = new Set(before.map.filter((e) => e.primary === id || e.followers.includes(id)).map((e) => e.slot));
        for (;;) {
          const s = await readClusterStatus(etcd.ns, config.replicas);
          const others = s.members.filter((m) => m.id !== id).length;
          const full = Math.min(s.replicas, others);
          const copies = s.map.filter((e) => e.primary === id || e.followers.includes(id)).length;
          const short = s.map.filter((e) => held.has(e.slot) && e.isr.filter((m) => m !== id).length < full).length;
          if (copies === 0 && short === 0) break;
          console.error(`draining ${id}: ${copies} copies left here, ${short} slots short of ${full} in-sync copies elsewhere`);
          await new Promise((r) => setTimeout(r, DRAIN_POLL_MS));
        }
        console.log(`${id} holds no copies and its slots have their copies elsewhere; it can stop now`);
        return 0;
      }
      default:
        console.error('usage: mailcue admin cluster status [--json] | drain MEMBER_ID [--no-wait]');
        return 2;
    }
  } catch (err) {
    console.error(`mailcue admin cluster: ${(err as Error).message}`);
    return 1;
  } finally {
    etcd.close();
  }
}
