// Lease fencing (DESIGN.md §8, issue 34): a primary shard and a front cut off from etcd together
// (a TCP proxy that stops forwarding) while mail for the shard's slots keeps arriving through that
// front. The shard stops admitting writes before its lease can expire, the front stops trusting its
// map after a TTL, the controller promotes in-sync copies; once healed, every mail acknowledged with
// 250 (through the cut front, before, during and after) is readable exactly once through both
// fronts. The control runs the same steps with the proxy left alone.
// Part of `npm run test:faults`, not of `npm test`: `npm test` runs the same fault (`cut-primary`)
// through the fault suite's checker (test/e2e/cluster-faults.test.ts), which checks more.
import test from 'ava';
import { URL } from 'node:url';
import { slotOf } from '../../src/cluster/slots.js';
import { clusterStatus, healthy, namedInboxes } from '../helpers/cluster.js';
import { startEtcd, type EtcdServer } from '../helpers/etcd.js';
import { startService, type Service } from '../helpers/service.js';
import { assertExactlyOnce, taggedLoad } from '../helpers/tagged-load.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const SHARDS = ['shard-0', 'shard-1', 'shard-2'];
const LEASE_TTL_S = 5;
/** Longer than the lease: the controller fails the cut shard's slots over meanwhile. */
const CUT_MS = 12_000;

let etcd: EtcdServer;
let proxy: TcpProxy;
let svc: Service;
let key: string;
let inboxes: string[] = [];

test.before(async () => {
  etcd = await startEtcd();
  proxy = await startTcpProxy(new URL(etcd.endpoint).host);
  // shard-0 and front 0 (the one svc.smtpPort reaches) talk to etcd through the proxy.
  svc = await startService({
    clusterShards: 3, fronts: 2, etcd: etcd.endpoint, env: { MAILCUE_LEASE_TTL_S: String(LEASE_TTL_S) },
    shardEnv: (i): Record<string, string> => (i === 0 ? { MAILCUE_ETCD_ENDPOINTS: proxy.url } : {}),
    frontEnvOf: (i): Record<string, string> => (i === 0 ? { MAILCUE_ETCD_ENDPOINTS: proxy.url } : {}),
  });
  await healthy(svc, SHARDS);
  key = (await svc.createAccount('enterprise')).api_key;
  inboxes = await namedInboxes(svc, key, 'fence', 24);
});
test.after.always(async () => {
  await svc?.stop();
  await proxy?.close();
  await etcd?.stop();
});

async function cutRun(t: import('ava').ExecutionContext, cut: boolean) {
  await healthy(svc, SHARDS);
  const s = await clusterStatus(svc);
  const on = inboxes.filter((inbox) => s.map[slotOf(inbox)].primary === 'shard-0');
  t.true(on.length >= 2, `inboxes on shard-0: ${on.length}`);
  const loadEnd = Date.now() + CUT_MS + 8000;
  const load = taggedLoad(svc.smtpPort, cut ? 'cut' : 'cut-control', on, loadEnd, 30_000);
  await new Promise((r) => setTimeout(r, 2000));
  if (cut) proxy.cutOff();
  await new Promise((r) => setTimeout(r, CUT_MS));
  if (cut) proxy.heal();
  const acked = await load;
  await healthy(svc, SHARDS);
  return acked;
}

test.serial('fencing - a primary and a front cut from etcd past the lease lose nothing acknowledged (and the control without the cut)', async (t) => {
  const control = await cutRun(t, false);
  t.true(control.size > 0);
  await assertExactlyOnce(t, svc, key, control, 'control');
  const acked = await cutRun(t, true);
  t.log(`control: ${control.size} acknowledged; with the cut: ${acked.size}`);
  t.true(acked.size > 0);
  await assertExactlyOnce(t, svc, key, acked, 'after the cut healed');
});
