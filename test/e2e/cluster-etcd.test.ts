// End to end: a cluster coordinated through a real etcd (DESIGN.md §8): shards register and take
// slots, fronts route by the slot map, `mailcue admin cluster status --json` tells the shape.
import test from 'ava';
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { sendMail } from '../helpers/mail.js';
import { startEtcd, type EtcdServer } from '../helpers/etcd.js';
import { startService, type Service } from '../helpers/service.js';
import { balanced, clusterStatus } from '../helpers/cluster.js';

let etcd: EtcdServer;
let svc: Service;
type Json = Record<string, any>;

test.before(async () => {
  etcd = await startEtcd();
  svc = await startService({ clusterShards: 3, fronts: 2, etcd: etcd.endpoint });
  await balanced(svc, ['shard-0', 'shard-1', 'shard-2']);
});

test.after.always(async () => {
  await svc?.stop();
  await etcd?.stop();
});

const status = () => clusterStatus(svc);

test.serial('cluster etcd - three shards share the slots within ±5 %; status has the documented shape', async (t) => {
  const s = await status();
  t.is(s.slots, 1024);
  t.is(s.map.length, 1024);
  t.deepEqual(s.members.map((m: Json) => m.id), ['shard-0', 'shard-1', 'shard-2']);
  t.true(['shard-0', 'shard-1', 'shard-2'].includes(s.controller));
  for (const m of s.members) {
    t.deepEqual(Object.keys(m).sort(), ['address', 'followers', 'id', 'max_lag', 'primaries', 'state']);
    t.true(Math.abs(m.primaries - 1024 / 3) <= (1024 / 3) * 0.05, `${m.id}: ${m.primaries}`);
  }
  t.deepEqual(Object.keys(s.map[0]).sort(), ['epoch', 'followers', 'isr', 'primary', 'slot']);
  // Three shards: three copies of every slot by default, all in sync, writes need two.
  t.is(s.replicas, 3);
  t.is(s.min_insync, 2);
  for (const e of s.map) t.deepEqual([...e.isr].sort(), [e.primary, ...e.followers].sort(), `slot ${e.slot}`);
  t.deepEqual(s.below_min, []);
  t.deepEqual(s.moves, []);
  const human = await svc.cli(['admin', 'cluster', 'status']);
  t.regex(human.stdout, /shard-0 {2}127\.0\.0\.1:\d+ {2}active/);
});

test.serial('cluster etcd - accounts, inboxes and mail through either front', async (t) => {
  const key = (await svc.createAccount('growth')).api_key;
  const inboxes: string[] = [];
  for (let i = 0; i < 12; i++) {
    const front = svc.frontUrls[i % 2]!;
    const res = await fetch(`${front}/v1/inboxes`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ address: `e${i}@mailcue.test` }) });
    t.is(res.status, 201);
    inboxes.push(`e${i}@mailcue.test`);
  }
  const sent = await sendMail(svc.smtpPort, { to: inboxes, subject: 'cluster', text: 'Your code is 4412' });
  t.regex(sent.response, /^250/);
  for (const front of svc.frontUrls) {
    const listed = (await (await fetch(`${front}/v1/inboxes`, { headers: { authorization: `Bearer ${key}` } })).json()) as Json;
    t.is(listed.count, 12);
    for (const inbox of inboxes) {
      const list = (await (await fetch(`${front}/v1/inboxes/${inbox}/messages`, { headers: { authorization: `Bearer ${key}` } })).json()) as Json;
      t.is(list.count, 1, inbox);
      t.is(list.data[0].otp, '4412');
    }
  }
});

test.serial('cluster etcd - the admin CLI creates an account through the slot map', async (t) => {
  const out = await svc.cli(['admin', 'create-account', '--plan', 'free']);
  t.is(out.code, 0, out.stderr);
  const { api_key } = JSON.parse(out.stdout) as Json;
  t.is((await svc.api(api_key, 'GET', '/v1/account')).status, 200);
});


/** Every file and directory under `dir`. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return lstatSync(full).isDirectory() ? [full, ...walk(full)] : [full];
  });
}

test.serial('cluster etcd - shard and front processes create their files 0600 and directories 0700 (DESIGN §7 at rest)', async (t) => {
  const entries = walk(svc.dataDir);
  t.true(entries.filter((e) => e.endsWith('data.mdb')).length >= 3, 'every shard wrote its LMDB env');
  for (const entry of entries) {
    const stat = lstatSync(entry);
    t.is(stat.mode & 0o777, stat.isDirectory() ? 0o700 : 0o600, path.relative(svc.dataDir, entry));
  }
});
