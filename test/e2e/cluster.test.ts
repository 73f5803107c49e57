// End to end: two `mailcue shard` processes and one `mailcue front` on loopback.
import test from 'ava';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';
import { parked, until } from '../helpers/wait.js';

let svc: Service;
test.before(async () => {
  svc = await startService({ clusterShards: 2 });
});
test.after.always(async () => {
  await svc?.stop();
});

type Json = Record<string, any>;

test('cluster - inboxes spread over both shards; one mail to several inboxes reaches each', async (t) => {
  t.is(svc.processes.length, 3);
  const key = (await svc.createAccount('growth')).api_key;
  const inboxes: string[] = [];
  for (let i = 0; i < 8; i++) {
    const res = await svc.api(key, 'POST', '/v1/inboxes', { address: `c${i}@mailcue.test` });
    t.is(res.status, 201);
    inboxes.push(((await res.json()) as Json).data.address);
  }
  const listed = ((await (await svc.api(key, 'GET', '/v1/inboxes')).json()) as Json).data.map((i: Json) => i.address);
  t.deepEqual([...listed].sort(), [...inboxes].sort());

  const sent = await sendMail(svc.smtpPort, { to: inboxes, subject: 'fan-out', text: 'Your code is 7731' });
  t.regex(sent.response, /^250/);
  for (const inbox of inboxes) {
    const list = (await (await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages`)).json()) as Json;
    t.is(list.count, 1, inbox);
    t.is(list.data[0].otp, '7731');
  }
  const stats = await svc.metrics();
  // The other test of this file may deliver one more meanwhile.
  t.true(Number(/^mailcue_messages_received_total (\d+)/m.exec(stats)![1]) >= 8);
});

// Serial: the parked-waiters gauge then counts this test's long-poll alone.
test.serial('cluster - a long-poll is woken by delivery on the owning shard process', async (t) => {
  const key = (await svc.createAccount('free')).api_key;
  const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  const pending = svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/wait?timeout=15`);
  await parked(svc);
  await sendMail(svc.smtpPort, { to: inbox, subject: 'wake', text: 'hello' });
  const body = (await (await pending).json()) as Json;
  t.is(body.data.subject, 'wake');
});

test.serial('cluster - a shard that stops answers 503 for its keys and readyz fails; restarted, it serves again', async (t) => {
  const key = (await svc.createAccount('free')).api_key;
  // Inboxes on both shards, so some live on the shard we stop.
  const inboxes: string[] = [];
  for (let i = 0; i < 6; i++) inboxes.push(((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address);
  const shard = svc.processes[1]!;
  const args = shard.spawnargs.slice(1);
  shard.kill('SIGKILL');
  await new Promise((r) => shard.once('exit', r));

  let unavailable = 0;
  for (const inbox of inboxes) {
    const res = await svc.api(key, 'GET', `/v1/inboxes/${inbox}`);
    if (res.status === 503) {
      unavailable++;
      t.is(((await res.json()) as Json).error, 'unavailable');
    } else if (res.status !== 200 && res.status !== 401) {
      t.fail(`unexpected ${res.status}`);
    }
  }
  t.true(unavailable > 0 || (await svc.api(key, 'GET', '/v1/inboxes')).status === 503, 'some keys lived on the stopped shard');
  const notReady = await fetch(`${svc.baseUrl}/readyz`);
  t.is(notReady.status, 503);
  t.like(await notReady.json(), { success: false, status: 'unavailable', reason: 'no answer to the health check from shard 1' });

  const { spawn } = await import('node:child_process');
  const restarted = spawn(process.execPath, args, { env: { ...process.env, ...svc.env }, stdio: 'ignore' });
  svc.processes[1] = restarted;
  await until(async () => (await fetch(`${svc.baseUrl}/readyz`)).status === 200, 'readyz after the shard restarts');
  for (const inbox of inboxes) {
    let status = 0;
    await until(async () => (status = (await svc.api(key, 'GET', `/v1/inboxes/${inbox}`)).status) === 200, `${inbox} served again`);
    t.is(status, 200, inbox);
  }
});
