// End to end (issue 14): etcd + 3 shard processes + 2 fronts. Data made through both fronts; a 4th
// shard joins while bounded load runs (SMTP ingest, REST reads, 200 parked long-polls); later a
// shard is drained and stopped. Every message acknowledged with 250 stays readable exactly once
// through either front, no parked long-poll errors, no 5xx but 503 with Retry-After (or SMTP 451),
// and the slots end balanced.
import test from 'ava';
import path from 'node:path';
import { sendMail } from '../helpers/mail.js';
import { startEtcd, type EtcdServer } from '../helpers/etcd.js';
import { startReceiver, type Receiver } from '../helpers/https-receiver.js';
import { freePort, kill, launch, startService, type Service } from '../helpers/service.js';
import { balanced as balancedOver } from '../helpers/cluster.js';
import { parked } from '../helpers/wait.js';

const balanced = (ids: string[]) => balancedOver(svc, ids);

type Json = Record<string, any>;
let etcd: EtcdServer;
let svc: Service;
let receiver: Receiver;

test.before(async () => {
  etcd = await startEtcd();
  receiver = await startReceiver();
  svc = await startService({
    clusterShards: 3, fronts: 2, etcd: etcd.endpoint,
    env: { MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true', MAILCUE_WEBHOOK_CA_FILE: receiver.caFile },
  });
});
test.after.always(async () => {
  await svc?.stop();
  await receiver?.close();
  await etcd?.stop();
});

interface Load {
  acked: Map<string, string>;
  smtpRefused: string[];
  badAnswers: string[];
  stop(): Promise<void>;
}

/** Bounded load: SMTP ingest of tagged mail and REST reads, until stopped or the bounds are hit. */
function startLoad(key: string, inboxes: string[], tagPrefix: string, acked = new Map<string, string>()): Load {
  let running = true;
  const smtpRefused: string[] = [];
  const badAnswers: string[] = [];
  const sender = (async () => {
    for (let i = 0; running && i < 150; i++) {
      const tag = `${tagPrefix}-${i}`;
      const to = inboxes[i % inboxes.length]!;
      try {
        const sent = await sendMail(svc.smtpPort, { to, subject: `tag ${tag}`, text: `tag ${tag}` });
        if (/^250/.test(sent.response)) acked.set(tag, to);
      } catch (err) {
        const code = (err as { responseCode?: number }).responseCode;
        // 451 is the documented "try again" during an epoch switch; anything else is a failure.
        if (code !== 451) smtpRefused.push(`${tag}: ${String(err)}`);
      }
    }
  })();
  const reader = (async () => {
    for (let i = 0; running && i < 2000; i++) {
      const front = svc.frontUrls[i % 2]!;
      const res = await fetch(`${front}/v1/inboxes/${inboxes[i % inboxes.length]}/messages?limit=5`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status >= 500 && !(res.status === 503 && res.headers.get('retry-after'))) badAnswers.push(`${res.status} ${await res.text()}`);
      else await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    acked, smtpRefused, badAnswers,
    async stop() {
      running = false;
      await Promise.all([sender, reader]);
    },
  };
}

/** Every acknowledged tag is in its inbox exactly once, read through each front. */
async function assertExactlyOnce(t: import('ava').ExecutionContext, key: string, acked: Map<string, string>) {
  const byInbox = new Map<string, string[]>();
  for (const [tag, inbox] of acked) byInbox.set(inbox, [...(byInbox.get(inbox) ?? []), tag]);
  for (const front of svc.frontUrls) {
    for (const [inbox, tags] of byInbox) {
      const res = await fetch(`${front}/v1/inboxes/${inbox}/messages?limit=100`, { headers: { authorization: `Bearer ${key}` } });
      t.is(res.status, 200, `${front} ${inbox}`);
      const subjects = ((await res.json()) as Json).data.map((m: Json) => m.subject as string);
      for (const tag of tags) t.is(subjects.filter((s: string) => s === `tag ${tag}`).length, 1, `${tag} in ${inbox} via ${front}`);
    }
  }
}

test.serial('reshard - a 4th shard joins under load and a drained shard stops; nothing acknowledged is lost or doubled', async (t) => {
  // A join and a drain, each copying hundreds of slots under load: minutes on a busy two-core machine; every wait inside is bounded.
  t.timeout(10 * 60_000);
  await balanced(['shard-0', 'shard-1', 'shard-2']);
  const account = await svc.createAccount('enterprise');
  const key = account.api_key;
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  // Data made through both fronts: inboxes, a webhook, a custom domain.
  const inboxes: string[] = [];
  for (let i = 0; i < 24; i++) {
    const res = await fetch(`${svc.frontUrls[i % 2]}/v1/inboxes`, { method: 'POST', headers: auth, body: JSON.stringify({ address: `r${i}@mailcue.test` }) });
    t.is(res.status, 201);
    inboxes.push(`r${i}@mailcue.test`);
  }
  receiver.key = key;
  const hook = await fetch(`${svc.frontUrls[1]}/v1/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: `${receiver.url}?t=reshard`, inbox: inboxes[0] }) });
  t.is(hook.status, 201);
  const domain = await fetch(`${svc.frontUrls[0]}/v1/custom-domains`, { method: 'POST', headers: auth, body: JSON.stringify({ domain: 'reshard.example' }) });
  t.is(domain.status, 201);

  const before = startLoad(key, inboxes, 'pre');
  await new Promise((r) => setTimeout(r, 500));
  await before.stop();
  t.true(before.acked.size > 0);

  // 200 parked long-polls on inboxes of their own (no other mail goes there).
  const pollInboxes: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${svc.frontUrls[i % 2]}/v1/inboxes`, { method: 'POST', headers: auth, body: JSON.stringify({ address: `p${i}@mailcue.test` }) });
    t.is(res.status, 201);
    pollInboxes.push(`p${i}@mailcue.test`);
  }
  const polls = Array.from({ length: 200 }, (_, i) =>
    fetch(`${svc.frontUrls[i % 2]}/v1/inboxes/${pollInboxes[i % 20]}/messages/wait?timeout=60`, { headers: auth }).then(async (res) => ({ status: res.status, body: (await res.json()) as Json })),
  );
  await parked(svc, 200);

  // A 4th shard joins while mail and reads go on.
  const during = startLoad(key, inboxes, 'join', before.acked);
  const port = await freePort();
  const fourth = launch(['shard', '--id', 'shard-3', '--listen', `127.0.0.1:${port}`, '--data', path.join(svc.dataDir, 'shard-3')], svc.env);
  svc.processes.unshift(fourth);
  const joined = await balanced(['shard-0', 'shard-1', 'shard-2', 'shard-3']);
  t.true(joined.members.find((m: Json) => m.id === 'shard-3').primaries > 0);
  await during.stop();
  t.deepEqual(during.smtpRefused, []);
  t.deepEqual(during.badAnswers, []);

  // Every parked long-poll still answers: mail to each poll inbox wakes it wherever it lives now.
  for (const inbox of pollInboxes) await sendMail(svc.smtpPort, { to: inbox, subject: 'wake', text: 'wake up' });
  for (const poll of await Promise.all(polls)) {
    t.is(poll.status, 200, JSON.stringify(poll.body));
    t.true(poll.body.success);
    t.true(poll.body.timed_out === true || poll.body.data?.subject === 'wake');
  }
  await assertExactlyOnce(t, key, during.acked);

  // Drain shard-1, stop it; the rest still serve everything.
  const drain = await svc.cli(['admin', 'cluster', 'drain', 'shard-1']);
  t.is(drain.code, 0, drain.stderr);
  const after = startLoad(key, inboxes, 'drain', during.acked);
  const shard1 = svc.processes.find((p) => p.spawnargs.includes('shard-1'))!;
  await kill(shard1);
  const final = await balanced(['shard-0', 'shard-2', 'shard-3']);
  await after.stop();
  t.deepEqual(after.smtpRefused, []);
  t.deepEqual(after.badAnswers, []);
  for (const m of final.members) t.true(Math.abs(m.primaries - 1024 / 3) <= (1024 / 3) * 0.1);
  await assertExactlyOnce(t, key, after.acked);
  // Listings gather every shard once: no copy is listed twice, none is missing.
  const listed = (await (await fetch(`${svc.frontUrls[1]}/v1/inboxes`, { headers: auth })).json()) as Json;
  t.is(listed.count, 44);
  const hooks = (await (await fetch(`${svc.frontUrls[0]}/v1/webhooks`, { headers: auth })).json()) as Json;
  t.is(hooks.data.length, 1);
  const domains = (await (await fetch(`${svc.frontUrls[1]}/v1/custom-domains`, { headers: auth })).json()) as Json;
  t.is(domains.data.length, 1);
});
