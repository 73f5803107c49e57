// The in-sync set under two faults of issue 34 (DESIGN.md §8), each beside a control run of the
// same steps without the fault: etcd + 3 shards with `MAILCUE_REPLICAS=2` (the setup), the
// minimum in sync at its default 2, tagged SMTP load retried on 4xx as an MTA does.
// - A follower paused (SIGSTOP) for 5 s under load, its primary then killed: every mail
//   acknowledged with 250 is readable exactly once once the primary is back.
// - A shard killed and restarted inside its lease with an empty data directory under the same id:
//   every acknowledged mail of the slots it served is still there (its followers' copies are not
//   overwritten by its empty ones), and it copies as a follower before it serves.
// Part of `npm run test:faults`, not of `npm test`: `npm test` runs the same two faults through the
// fault suite's checker (test/e2e/cluster-faults.test.ts), which checks more; these add the control.
import test from 'ava';
import { balanced, healthy, namedInboxes, primaryWithFollower, relaunchShard, shardProcess } from '../helpers/cluster.js';
import { startEtcd, type EtcdServer } from '../helpers/etcd.js';
import { kill, logProcessesIfFailed, startService, type Service } from '../helpers/service.js';
import { assertExactlyOnce, taggedLoad, type Acked } from '../helpers/tagged-load.js';

const SHARDS = ['shard-0', 'shard-1', 'shard-2'];
const LEASE_TTL_S = 5;

let etcd: EtcdServer;
let svc: Service;
let key: string;
let inboxes: string[] = [];

test.before(async () => {
  etcd = await startEtcd();
  svc = await startService({
    clusterShards: 3, fronts: 1, etcd: etcd.endpoint,
    env: {
      MAILCUE_REPLICAS: '2', MAILCUE_LEASE_TTL_S: String(LEASE_TTL_S),
    },
  });
  await balanced(svc, SHARDS);
  key = (await svc.createAccount('enterprise')).api_key;
  inboxes = await namedInboxes(svc, key, 'isr', 24);
});
test.afterEach.always((t) => logProcessesIfFailed(t, svc));
test.after.always(async () => {
  await svc?.stop();
  await etcd?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pausedFollower(t: import('ava').ExecutionContext, fault: boolean): Promise<Map<string, Acked>> {
  await healthy(svc, SHARDS);
  const { primary, follower, on } = await primaryWithFollower(svc, SHARDS, inboxes);
  const loadEnd = Date.now() + 9000;
  const load = taggedLoad(svc.smtpPort, `${fault ? 'pause' : 'pause-control'}`, on, loadEnd, 25_000);
  await sleep(1500);
  const paused = shardProcess(svc, follower);
  if (fault) paused.kill('SIGSTOP');
  await sleep(5000);
  if (fault) paused.kill('SIGCONT');
  const dying = shardProcess(svc, primary);
  await kill(dying, 'SIGKILL');
  t.log(`${fault ? 'paused' : 'did not pause'} ${follower} 5 s, then killed its primary ${primary}`);
  // The primary comes back on its own data once the load has run its course.
  await sleep(Math.max(0, loadEnd - Date.now()));
  relaunchShard(svc, dying, primary, false);
  const acked = await load;
  await healthy(svc, SHARDS);
  return acked;
}

test.serial('isr - a follower paused 5 s, then its primary killed: every acknowledged mail is kept (and the control without the pause)', async (t) => {
  // Two runs (control, fault), each with a failover and a heal: minutes on a busy two-core machine; every wait inside is bounded.
  t.timeout(8 * 60_000);
  const control = await pausedFollower(t, false);
  t.true(control.size > 0, 'the control acknowledged mail');
  await assertExactlyOnce(t, svc, key, control, 'control');
  const acked = await pausedFollower(t, true);
  t.log(`control: ${control.size} acknowledged; with the pause: ${acked.size}`);
  t.true(acked.size > 0, 'mail was acknowledged around the pause');
  await assertExactlyOnce(t, svc, key, acked, 'after the pause and the kill');
});

async function emptyRestart(t: import('ava').ExecutionContext, wipe: boolean): Promise<Map<string, Acked>> {
  await healthy(svc, SHARDS);
  const { primary, on } = await primaryWithFollower(svc, SHARDS, inboxes);
  const before = await taggedLoad(svc.smtpPort, wipe ? 'wiped-before' : 'kept-before', on, Date.now() + 3000, 10_000);
  t.true(before.size > 0);
  const dying = shardProcess(svc, primary);
  const killedAt = Date.now();
  await kill(dying, 'SIGKILL');
  relaunchShard(svc, dying, primary, wipe);
  t.log(`${primary} back ${wipe ? 'with an empty data directory' : 'on its data'} ${Date.now() - killedAt} ms after the kill (lease ${LEASE_TTL_S} s)`);
  const after = await taggedLoad(svc.smtpPort, wipe ? 'wiped-after' : 'kept-after', on, Date.now() + 4000, 25_000);
  await healthy(svc, SHARDS);
  return new Map([...before, ...after]);
}

test.serial('isr - a shard restarted inside its lease with an empty data directory loses nothing acknowledged (and the control on its data)', async (t) => {
  t.timeout(8 * 60_000);
  const control = await emptyRestart(t, false);
  await assertExactlyOnce(t, svc, key, control, 'control');
  const acked = await emptyRestart(t, true);
  t.log(`control: ${control.size} acknowledged; with the empty directory: ${acked.size}`);
  await assertExactlyOnce(t, svc, key, acked, 'after the empty restart');
  // Nothing acknowledged earlier went either (its followers' copies were not overwritten).
  await assertExactlyOnce(t, svc, key, control, 'the control mail after the empty restart');
});
