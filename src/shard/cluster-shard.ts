// A shard in cluster mode (MAILCUE_ETCD_ENDPOINTS): serves its gRPC as usual, fences every routed
// command by the slot map it watches, keeps `members/<id>` alive on a lease and stands for
// controller. Stops in order: step down, leave (revoke the lease), then stop serving.
import { Controller, SESSIONS_PREFIX } from '../cluster/controller.js';
import type { MoveRunner } from '../cluster/moves.js';
import { clearDrain } from '../cluster/drain.js';
import { connectEtcd } from '../cluster/etcd.js';
import { MemberRegistration } from '../cluster/members.js';
import { SlotGuard } from '../cluster/slot-guard.js';
import { SlotView } from '../cluster/slot-view.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../obs/logger.js';
import type { TlsMaterial } from '../rpc/tls.js';
import { slotOf } from '../cluster/slots.js';
import { LagReport } from '../cluster/lag-report.js';
import { SlotMapStore } from '../cluster/slot-map-store.js';
import { Generations } from './generations.js';
import { incarnationOf } from './incarnation.js';
import { IsrWriter } from './isr-writer.js';
import { Replicator } from './replicator.js';
import { SlotLocks } from './slot-locks.js';
import { startShardHost, type ShardHost } from './shard-host.js';

export interface ClusterShardOptions {
  /** Member id, stable across restarts (the StatefulSet pod name). */
  id: string;
  config: Config;
  listen: string;
  /** host:port other cluster processes dial; defaults to `listen`. */
  advertise: string;
  dataDir: string;
  masterKey: string;
  log: Logger;
  tls: TlsMaterial | null;
  /** Builds the runner of data moves once the host is up (it needs the host's store). */
  runner(host: ShardHost, view: SlotView, guard: SlotGuard, locks: SlotLocks): MoveRunner;
}

export interface ClusterShard {
  readonly host: ShardHost;
  readonly controller: Controller;
  stop(): Promise<void>;
}

export async function startClusterShard(o: ClusterShardOptions): Promise<ClusterShard> {
  const etcd = connectEtcd({ endpoints: o.config.etcdEndpoints, prefix: o.config.etcdPrefix, tls: o.tls });
  const { ns } = etcd;
  // A member that starts again takes slots again, even if it was drained before it stopped.
  await clearDrain(ns, o.id);
  // Created with the directory, before any data: an empty or replaced directory is a new member.
  const generations = await Generations.start(ns, o.id, o.dataDir, incarnationOf(o.dataDir), o.config.leaseTtlS * 1000, (found, known) =>
    o.log.warn({ found, known }, 'the data directory is an older copy (a restored backup?): it starts as a new member and copies from its primaries'));
  const { incarnation } = generations;
  const view = await SlotView.start(ns, o.config.leaseTtlS);
  const fallbackMin = o.config.minInsync ?? ((o.config.replicas ?? 1) >= 2 ? 2 : 1);
  const guard = new SlotGuard(view, o.id, () => (o.config.replicationAck === 'all' ? view.minInsync(fallbackMin) : 1));
  const host = await startShardHost({ id: 0, config: o.config, listen: o.listen, dataDir: o.dataDir, masterKey: o.masterKey, log: o.log, tls: o.tls, guard });
  const locks = new SlotLocks();
  const registration = await MemberRegistration.register(ns, { id: o.id, address: o.advertise, state: 'active', incarnation }, o.config.leaseTtlS, {
    onError: (err) => o.log.warn({ err: String(err) }, 'membership lease lost; registering again (a new session: the controller fails over what it served)'),
    newSession: () => guard.newSession(),
    // Notifications held back while the lease was in doubt go now.
    freshAgain: () => host.actors.webhooks.sendsChanged(),
  });
  guard.lease = registration;
  // Once the controller has recorded this session, the slots fenced at its start are judged again by the map.
  const sessionWatch = setInterval(() => {
    void ns.get(`${SESSIONS_PREFIX}${o.id}`).string().then((raw) => {
      if (!raw || (JSON.parse(raw) as { session?: string }).session !== registration.current.session) return;
      clearInterval(sessionWatch);
      guard.sessionRecorded();
      view.listeners.forEach((l) => l(view.map));
    }, () => undefined);
  }, 1000);
  sessionWatch.unref();
  const runner = o.runner(host, view, guard, locks);
  const { actors } = host;
  const replicator = new Replicator(actors.ctx.store, view, guard, o.tls, o.log, new IsrWriter(new SlotMapStore(ns), o.id, o.log), locks, {
    gained(slots) {
      const gained = new Set(slots);
      actors.accounts.evictWhere((key) => gained.has(slotOf(key)));
      actors.webhooks.reload();
      o.log.info({ slots: slots.length }, 'serving slots this shard held copies of');
    },
  });
  // Only the slot's primary notifies, and only while the slot has its minimum in-sync copies: a mail
  // stored while it had fewer was not acknowledged (451), and its notification waits until the copies
  // that hold it are enough to outlive this shard.
  actors.webhooks.sendsFor = (inbox) => guard.mayNotify(slotOf(inbox));
  // A notification held back that way goes once the map shows the copies again (at most a second later).
  let repump: NodeJS.Timeout | null = null;
  view.listeners.push(() => {
    repump ??= setTimeout(() => {
      repump = null;
      actors.webhooks.sendsChanged();
    }, 1000).unref();
  });
  actors.retention.owns = (slot) => guard.owns(slot);
  actors.replicationLag = () => replicator.lagBySlot();
  const lagReport = new LagReport(ns, o.id, () => replicator.lagByFollower());
  if (o.config.replicationAck === 'all') {
    actors.durability = replicator;
    actors.webhooks.replicated = () => replicator.barrier();
  }
  actors.webhooks.start();
  const controller = new Controller(ns, o.id, o.config.leaseTtlS, runner, o.log, { replicas: o.config.replicas, minInsync: o.config.minInsync });
  controller.start();
  o.log.info({ member: o.id, address: o.advertise }, 'joined the cluster');
  return {
    host,
    controller,
    async stop() {
      clearInterval(sessionWatch);
      generations.stop();
      await controller.stop();
      await registration.close().catch(() => undefined);
      lagReport.close();
      replicator.close();
      await host.stop();
      await view.close();
      etcd.close();
    },
  };
}
