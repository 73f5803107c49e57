// End to end: embedded mode routes by slot over its worker shards; changing MAILCUE_SHARD_COUNT
// moves every record to its slot's new shard on the next start, so nothing is lost or doubled.
import test from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService({ restartable: true, env: { MAILCUE_SHARD_COUNT: '2' } });
});
test.after.always(async () => {
  await svc?.stop();
});

test('embedded slots - data survives going from 2 to 3 shards and back', async (t) => {
  const { api_key: key } = await svc.createAccount('growth');
  const inboxes: string[] = [];
  for (let i = 0; i < 16; i++) {
    const res = await svc.api(key, 'POST', '/v1/inboxes', { address: `s${i}@mailcue.test` });
    t.is(res.status, 201);
    inboxes.push(`s${i}@mailcue.test`);
  }
  for (const inbox of inboxes) t.regex((await sendMail(svc.smtpPort, { to: inbox, subject: `for ${inbox}`, text: 'code 5150' })).response, /^250/);
  t.deepEqual(JSON.parse(readFileSync(path.join(svc.dataDir, 'slots.json'), 'utf8')), { slots: 1024, shards: 2 });

  const check = async () => {
    const listed = (await (await svc.api(key, 'GET', '/v1/inboxes')).json()) as Json;
    t.is(listed.count, 16);
    for (const inbox of inboxes) {
      const list = (await (await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages`)).json()) as Json;
      t.is(list.count, 1, inbox);
      t.is(list.data[0].subject, `for ${inbox}`);
    }
    t.is((await svc.api(key, 'GET', '/v1/account')).status, 200);
  };
  svc.env.MAILCUE_SHARD_COUNT = '3';
  await svc.restart();
  t.true(existsSync(path.join(svc.dataDir, 'shard-2')));
  t.deepEqual(JSON.parse(readFileSync(path.join(svc.dataDir, 'slots.json'), 'utf8')), { slots: 1024, shards: 3 });
  await check();
  svc.env.MAILCUE_SHARD_COUNT = '2';
  await svc.restart();
  await check();
});
