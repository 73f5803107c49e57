// The outbox across a restart (DESIGN.md §8, issue 34): etcd + 3 shards with `MAILCUE_REPLICAS=2`.
// A follower restarted on its data while its copy of the outbox holds a notification that is due
// (its primary's attempt is still waiting for the receiver) sends nothing of it. Only the slot's
// primary notifies, and a shard does not notify before it knows which slots it serves (it once sent
// its whole outbox at start, copies and unacknowledged tail alike: webhooks for mail that a
// failover then dropped). The faults themselves (a paused follower, an empty restart, a cut) run in
// test/e2e/cluster-faults.test.ts through the fault suite's checker.
import test from 'ava';
import { balanced, clusterStatus, healthy, namedInboxes, primaryWithFollower, relaunchShard, shardProcess } from '../helpers/cluster.js';
import { startEtcd, type EtcdServer } from '../helpers/etcd.js';
import { startReceiver, type Receiver } from '../helpers/https-receiver.js';
import { sendMail } from '../helpers/mail.js';
import { kill, logProcessesIfFailed, startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
const SHARDS = ['shard-0', 'shard-1', 'shard-2'];
const LEASE_TTL_S = 5;

let etcd: EtcdServer;
let receiver: Receiver;
let svc: Service;
let key: string;
let inboxes: string[] = [];

test.before(async () => {
  etcd = await startEtcd();
  receiver = await startReceiver();
  svc = await startService({
    clusterShards: 3, fronts: 1, etcd: etcd.endpoint,
    env: {
      MAILCUE_REPLICAS: '2', MAILCUE_LEASE_TTL_S: String(LEASE_TTL_S),
      // A notification the receiver holds stays in flight for a minute, and a failed one is retried only after ten.
      MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true', MAILCUE_WEBHOOK_CA_FILE: receiver.caFile, MAILCUE_WEBHOOK_TIMEOUT_MS: '60000', MAILCUE_WEBHOOK_RETRY_DELAYS_MS: '600000',
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
  await receiver?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.serial('outbox - a follower restarted on its data sends no notification from its copy of the outbox', async (t) => {
  t.timeout(4 * 60_000);
  await healthy(svc, SHARDS);
  const { follower, on } = await primaryWithFollower(svc, SHARDS, inboxes);
  const inbox = on[0]!;
  receiver.key = key;
  const url = new URL(`${receiver.url}?t=restart`);
  const hooked = await svc.api(key, 'POST', '/v1/webhooks', { url: url.href, inbox });
  t.is(hooked.status, 201, await hooked.clone().text());
  // The primary's attempt hangs: its outbox entry stays due, and the follower's copy holds it.
  receiver.scripts[url.pathname + url.search] = ['hang'];
  await sendMail(svc.smtpPort, { to: inbox, subject: 'due on the follower too' });
  await receiver.waitFor(1, 30_000);
  const dying = shardProcess(svc, follower);
  await kill(dying, 'SIGKILL');
  // Back once its lease has gone: it must copy and join the in-sync sets again before the cluster is
  // healthy, long after a shard that sends at start (before it registers) has sent.
  const end = Date.now() + 30_000;
  while ((await clusterStatus(svc)).members.some((m: Json) => m.id === follower) && Date.now() < end) await sleep(500);
  relaunchShard(svc, dying, follower, false);
  await healthy(svc, SHARDS);
  t.deepEqual(receiver.deliveries.map((d) => d.url), [url.pathname + url.search], 'only the primary sent the notification, once');
});
