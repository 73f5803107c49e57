// Attack: reads with a forged key that names a real account (DESIGN §7 "No shard work before
// admission"). Twenty parallel GET …/raw of a 9 MB message with `mc_<real account id>_000…` must
// make the shard read nothing, cost one admission each, and leave another account untouched.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { metricValue, parkVictim, serviceRss } from '../helpers/isolation.js';
import { sendMail } from '../helpers/mail.js';
import { rawInitialize, rawMcp } from '../helpers/mcp.js';
import { startService, type Service } from '../helpers/service.js';
import { awayFromMinuteEnd } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await svc?.stop();
});

const commands = async (name: string) => metricValue(await svc.metrics(), 'mailcue_shard_commands_dispatched', `command="${name}"`);

test.serial('admission - twenty parallel raw reads of a 9 MB message with a forged key read nothing on the shard', async (t) => {
  const victim = await svc.createAccount('growth');
  const inbox = ((await (await svc.api(victim.api_key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  const sent = await sendMail(svc.smtpPort, {
    to: inbox, subject: 'big', text: 'attached', attachments: [{ filename: 'blob.bin', content: randomBytes(6_700_000) }],
  });
  t.regex(sent.response, /^250/);
  const id = ((await (await svc.api(victim.api_key, 'GET', `/v1/inboxes/${inbox}/messages`)).json()) as Json).data[0].id;
  const bystander = await parkVictim(svc);

  const forged = `mc_${victim.id.slice(4)}_${'0'.repeat(48)}`;
  const rawBefore = await commands('message.raw');
  const admitsBefore = await commands('account.admit');
  const rssBefore = serviceRss(svc);
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => fetch(`${svc.baseUrl}/v1/inboxes/${inbox}/messages/${id}/raw`, { headers: { authorization: `Bearer ${forged}` } })),
  );
  for (const res of answers) {
    t.is(res.status, 401);
    t.is(res.headers.get('www-authenticate'), 'Bearer');
    t.like(await res.json(), { success: false, error: 'unauthorized' });
  }
  t.is(await commands('message.raw'), rawBefore, 'the shard read no raw message for a forged key');
  t.is(await commands('account.admit') - admitsBefore, 20, 'each forged request cost one admission check');
  t.true(serviceRss(svc) - rssBefore < 64 * 1024 * 1024, 'memory stayed bounded');

  // The owner still reads it; once admitted here, its reads start beside admission.
  const own = await svc.api(victim.api_key, 'GET', `/v1/inboxes/${inbox}/messages/${id}/raw`);
  t.is(own.status, 200);
  t.true((await own.arrayBuffer()).byteLength > 9_000_000);
  t.is(await commands('message.raw'), rawBefore + 1);
  await bystander.assertUnaffected(t);
});

test.serial('admission - a forged access token on a read-only tool runs nothing on the shard', async (t) => {
  const victim = await svc.createAccount('growth');
  const inbox = ((await (await svc.api(victim.api_key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  const session = await rawInitialize(svc.baseUrl, victim.api_key);
  const forged = `mca_${victim.id.slice(4)}_${'0'.repeat(48)}`;
  const latestBefore = await commands('message.latest');
  const admitsBefore = await commands('account.admit');
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_latest_email', arguments: { inbox } } }, {
        authorization: `Bearer ${forged}`, 'mcp-session-id': session,
      }),
    ),
  );
  for (const res of answers) {
    t.is(res.status, 401);
    t.like(await res.json(), { error: { code: -32002 } });
  }
  t.is(await commands('message.latest'), latestBefore);
  t.is(await commands('account.admit') - admitsBefore, 10, 'each cost one admission check');
  for (const p of svc.processes) t.is(p.exitCode, null);
});

test.serial('admission - a forged key naming a session this front does not hold reads no session, on /mcp and /messages', async (t) => {
  const victim = await svc.createAccount('growth');
  const forged = `mca_${victim.id.slice(4)}_${'0'.repeat(48)}`;
  const findsBefore = await commands('account.session_find');
  const admitsBefore = await commands('account.admit');
  for (let i = 0; i < 5; i++) {
    const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: i, method: 'tools/list' }, { authorization: `Bearer ${forged}`, 'mcp-session-id': `s-${i}-not-held-here` });
    t.is(res.status, 401);
    const legacy = await fetch(`${svc.baseUrl}/messages?sessionId=s-${i}-not-held-here`, {
      method: 'POST', headers: { authorization: `Bearer ${forged}`, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' }),
    });
    t.is(legacy.status, 401, 'no valid credential is 401 before an unknown session is 404');
  }
  t.is(await commands('account.session_find'), findsBefore, 'no session was looked up for the forged key');
  t.true(await commands('account.admit') - admitsBefore <= 10, 'each request cost at most one admission check');
});

test.serial('admission - a rotation and a plan change are pushed to the front: the old key starts no read beside admission', async (t) => {
  const account = await svc.createAccount('growth');
  const inbox = ((await (await svc.api(account.api_key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  await sendMail(svc.smtpPort, { to: inbox, subject: 'x', text: 'y' });
  const id = ((await (await svc.api(account.api_key, 'GET', `/v1/inboxes/${inbox}/messages`)).json()) as Json).data[0].id;
  const text = await svc.metrics();
  const rotationsBefore = metricValue(text, 'mailcue_notices_total', 'kind="rotated"');
  const plansBefore = metricValue(text, 'mailcue_notices_total', 'kind="plan"');

  t.is((await svc.admin('PATCH', `/admin/v1/accounts/${account.id}`, { plan: 'enterprise' })).status, 200);
  t.is((await svc.admin('POST', `/admin/v1/accounts/${account.id}/rotate-key`)).status, 200);
  // The refusal does not wait for the push: the shard checks every request.
  const rawBefore = await commands('message.raw');
  for (let i = 0; i < 5; i++) t.is((await svc.api(account.api_key, 'GET', `/v1/inboxes/${inbox}/messages/${id}/raw`)).status, 401);
  t.is(await commands('message.raw'), rawBefore, 'the rotated-out key started no read');
  const after = await svc.metrics();
  t.is(metricValue(after, 'mailcue_notices_total', 'kind="rotated"'), rotationsBefore + 1);
  t.is(metricValue(after, 'mailcue_notices_total', 'kind="plan"'), plansBefore + 1);
});

test.serial('admission leases - a busy key spends leases on the front: RateLimit-Remaining counts down by one, usage counts each request, a rotation stops the old key at once', async (t) => {
  const account = await svc.createAccount('enterprise');
  await awayFromMinuteEnd();
  const leasedBefore = metricValue(await svc.metrics(), 'mailcue_leased_admissions');
  for (let i = 1; i <= 40; i++) {
    const res = await svc.api(account.api_key, 'GET', '/v1/inboxes');
    t.is(res.status, 200);
    t.is(res.headers.get('ratelimit-limit'), '1200');
    t.is(res.headers.get('ratelimit-remaining'), String(1200 - i), `request ${i}`);
  }
  t.true(metricValue(await svc.metrics(), 'mailcue_leased_admissions') - leasedBefore > 20, 'most of the 40 requests were admitted from leases');
  const usage = ((await (await svc.api(account.api_key, 'GET', '/v1/account')).json()) as Json).data;
  t.is(usage.requests_this_minute, 41, 'usage counts what was spent, not what was leased');

  for (let i = 0; i < 10; i++) await svc.api(account.api_key, 'GET', '/v1/inboxes'); // a lease in hand again
  const rotated = await svc.admin('POST', `/admin/v1/accounts/${account.id}/rotate-key`);
  const fresh = ((await rotated.json()) as Json).data.api_key;
  t.is((await svc.api(account.api_key, 'GET', '/v1/inboxes')).status, 401, 'the old key spends no lease after the rotation');
  t.is((await svc.api(fresh, 'GET', '/v1/inboxes')).status, 200);
});

test.serial('admission leases - tool calls of a busy key are leased with their credits: usage counts every op and credit exactly', async (t) => {
  const account = await svc.createAccount('enterprise');
  await awayFromMinuteEnd();
  const session = await rawInitialize(svc.baseUrl, account.api_key);
  const headers = { authorization: `Bearer ${account.api_key}`, 'mcp-session-id': session };
  const leasedBefore = metricValue(await svc.metrics(), 'mailcue_leased_admissions');
  for (let i = 0; i < 30; i++) {
    const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'list_inboxes', arguments: {} } }, headers);
    t.is(res.status, 200);
    t.falsy(((await res.json()) as Json).result.isError);
  }
  t.true(metricValue(await svc.metrics(), 'mailcue_leased_admissions') > leasedBefore);
  const usage = ((await (await svc.api(account.api_key, 'GET', '/v1/account')).json()) as Json).data;
  t.is(usage.ops_this_minute, 30);
  t.is(usage.credits_used, 30);
});
