// End to end: webhook registration over REST and signed, retried, durable delivery of new_message
// events to a real HTTPS receiver on loopback.
import test from 'ava';
import { createHmac } from 'node:crypto';
import { sendMail } from '../helpers/mail.js';
import { startReceiver, type Behaviour, type Receiver } from '../helpers/https-receiver.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { startService, type Service } from '../helpers/service.js';
import { assertShape } from '../helpers/shapes.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
let receiver: Receiver;
let acct: { id: string; api_key: string };

test.before(async () => {
  receiver = await startReceiver();
  svc = await startService({
    restartable: true,
    env: {
      MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true',
      MAILCUE_WEBHOOK_CA_FILE: receiver.caFile,
      MAILCUE_WEBHOOK_RETRY_DELAYS_MS: '300,900,1800',
      MAILCUE_WEBHOOK_TIMEOUT_MS: '1000',
    },
  });
  acct = await svc.createAccount('growth');
  receiver.key = acct.api_key;
});
test.after.always(async () => {
  await svc?.stop();
  await receiver?.close();
});

async function inbox(key = acct.api_key): Promise<string> {
  return ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
}

/** Each test gets its own receiver path so deliveries are told apart. */
function hookUrl(tag: string): string {
  return `${receiver.url}?t=${tag}`;
}

function deliveriesFor(address: string) {
  return receiver.deliveries.filter((d) => JSON.parse(d.body).inbox === address);
}

/**
 * Proves a webhook got nothing more for an inbox without sleeping: a sentinel webhook registered
 * on the same inbox receives a last mail. Its outbox entry commits in the same transaction as any
 * entry the other webhook could have had, and the sender drops or sends both in the same pass; so
 * once the sentinel has it, whatever the other was going to get has arrived.
 */
async function settledBySentinel(address: string, tag: string): Promise<void> {
  const sentinel = hookUrl(`sentinel-${tag}`);
  await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: sentinel, inbox: address });
  await sendMail(svc.smtpPort, { to: address, subject: `sentinel ${tag}`, text: 'x' });
  await until(() => receiver.deliveries.some((d) => sentinel.endsWith(d.url) && d.status === 200), `the sentinel webhook of ${address}`);
}

const toOthers = (address: string) => deliveriesFor(address).filter((d) => !d.url.includes('t=sentinel-'));

test('webhooks - register, list, a signed new_message delivery with the SEED.md fields, delete', async (t) => {
  const address = await inbox();
  const res = await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: hookUrl('basic'), inbox: address });
  t.is(res.status, 201);
  const reg = (await res.json()) as Json;
  t.regex(reg.id, /^wh_/);
  t.deepEqual(reg, { success: true, id: reg.id, inbox: address, url: hookUrl('basic') });

  const list = (await (await svc.api(acct.api_key, 'GET', '/v1/webhooks')).json()) as Json;
  const mine = list.data.find((w: Json) => w._id === reg.id);
  t.deepEqual(Object.keys(mine).sort(), ['_id', 'createdAt', 'failureCount', 'inbox', 'url']);
  t.is(mine.failureCount, 0);
  assertShape(t, 'webhook', mine, 'GET /v1/webhooks');
  t.is(list.count, list.data.length);

  await sendMail(svc.smtpPort, { to: address, subject: 'Your code', text: 'Your verification code is 662211', attachments: [{ filename: 'a.txt', content: 'hi' }] });
  await until(() => deliveriesFor(address).length >= 1, 'the first delivery');
  const [d] = deliveriesFor(address);
  t.is(d!.status, 200, 'the receiver verified X-Service-Signature');
  const body = JSON.parse(d!.body);
  t.is(body.event, 'new_message');
  t.is(body.inbox, address);
  t.regex(body.message.id, /^msg_/);
  t.is(body.message.from, 'sender@example.com');
  t.is(body.message.subject, 'Your code');
  t.regex(body.message.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.is(body.message.has_attachment, true);
  t.is(body.message.otp, '662211');
  t.is(body.message.verification_link, null);
  t.true(['pass', 'fail', 'none', 'temperror'].includes(body.message.auth), 'the compact sender-authentication verdict rides along');
  assertShape(t, 'new_message_event', body, 'the webhook body');
  t.is(d!.headers['x-service-signature'], createHmac('sha256', acct.api_key).update(d!.body).digest('hex'));
  const id = d!.headers['webhook-id'] as string;
  const ts = d!.headers['webhook-timestamp'] as string;
  const secret = Buffer.from(`whsec_${Buffer.from(acct.api_key).toString('base64')}`.slice(6), 'base64');
  t.is(d!.headers['webhook-signature'], `v1,${createHmac('sha256', secret).update(`${id}.${ts}.${d!.body}`).digest('base64')}`);

  // The attempt is logged once its outcome commits, a moment after the receiver answered.
  let history: Json = { data: [] };
  await until(async () => {
    history = (await (await svc.api(acct.api_key, 'GET', `/v1/webhooks/${reg.id}/deliveries`)).json()) as Json;
    return history.data.length > 0;
  }, 'the delivery in the webhook history');
  t.is(history.data[0].status, 200);
  assertShape(t, 'webhook_delivery', history.data[0], 'GET /v1/webhooks/{id}/deliveries');

  const del = await svc.api(acct.api_key, 'DELETE', `/v1/webhooks/${reg.id}`);
  t.deepEqual(await del.json(), { success: true, message: `Webhook ${reg.id} deleted` });
  await sendMail(svc.smtpPort, { to: address, subject: 'after delete', text: 'x' });
  await settledBySentinel(address, 'deleted');
  t.is(toOthers(address).length, 1);
});

test.serial('webhooks - a receiver that fails twice then succeeds gets exactly three attempts at growing intervals', async (t) => {
  const address = await inbox();
  await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: hookUrl('retry'), inbox: address });
  receiver.script.push(500, 503);
  await sendMail(svc.smtpPort, { to: address, subject: 'retry me', text: 'hello' });
  await until(() => deliveriesFor(address).length >= 3, 'three attempts');
  // The success commits with the outbox entry removed: once it is in the history, no attempt is left.
  const id = ((await (await svc.api(acct.api_key, 'GET', '/v1/webhooks')).json()) as Json).data.find((w: Json) => w.inbox === address)._id;
  await until(async () => ((await (await svc.api(acct.api_key, 'GET', `/v1/webhooks/${id}/deliveries`)).json()) as Json).data[0]?.status === 200, 'the success in the history');
  const attempts = deliveriesFor(address);
  t.deepEqual(attempts.map((a) => a.status), [500, 503, 200]);
  t.is(new Set(attempts.map((a) => a.headers['webhook-id'])).size, 1, 'the same webhook-id on every retry');
  const gaps = [attempts[1]!.at - attempts[0]!.at, attempts[2]!.at - attempts[1]!.at];
  t.true(gaps[1]! > gaps[0]!, `intervals grow: ${gaps}`);
});

test.serial('webhooks - 10 consecutive failed notifications disable the webhook; registering again re-activates it', async (t) => {
  const address = await inbox();
  const reg = (await (await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: hookUrl('disable'), inbox: address })).json()) as Json;
  // Every attempt of 10 notifications fails (4 attempts each).
  receiver.script.push(...Array(40).fill(500));
  for (let i = 0; i < 10; i++) await sendMail(svc.smtpPort, { to: address, subject: `fail ${i}`, text: 'x' });
  await until(() => deliveriesFor(address).length >= 40, 'forty failed attempts', 60_000);
  // The tenth notification's last failure disables the webhook in the transaction that logs it.
  await until(async () => ((await (await svc.api(acct.api_key, 'GET', `/v1/webhooks/${reg.id}/deliveries`)).json()) as Json).data.length >= 40, 'forty logged attempts');
  const active = (await (await svc.api(acct.api_key, 'GET', '/v1/webhooks')).json()) as Json;
  t.false(active.data.some((w: Json) => w._id === reg.id));
  const all = (await (await svc.api(acct.api_key, 'GET', '/v1/webhooks?status=all')).json()) as Json;
  const disabled = all.data.find((w: Json) => w._id === reg.id);
  t.is(disabled.disabled, true);
  assertShape(t, 'webhook', disabled, 'GET /v1/webhooks?status=all');
  t.is(disabled.failureCount, 10);

  await sendMail(svc.smtpPort, { to: address, subject: 'while disabled', text: 'x' });
  await settledBySentinel(address, 'disabled');
  t.is(toOthers(address).length, 40, 'a disabled webhook gets nothing');

  const again = await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: hookUrl('disable'), inbox: address });
  t.is(again.status, 200);
  t.is(((await again.json()) as Json).id, reg.id);
  const relisted = ((await (await svc.api(acct.api_key, 'GET', '/v1/webhooks')).json()) as Json).data.find((w: Json) => w._id === reg.id);
  t.is(relisted.failureCount, 0);
  await sendMail(svc.smtpPort, { to: address, subject: 'back', text: 'x' });
  const back = () => toOthers(address).some((d) => JSON.parse(d.body).message.subject === 'back' && d.status === 200);
  await until(back, 'the re-activated webhook to deliver');
  t.true(back(), 'the re-activated webhook delivers again');
});

test.serial('webhooks - killed with a retry pending and restarted: the notification arrives, once', async (t) => {
  const address = await inbox();
  await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: hookUrl('restart'), inbox: address });
  receiver.script.push(500);
  await sendMail(svc.smtpPort, { to: address, subject: 'survive', text: 'x' });
  await until(() => deliveriesFor(address).length >= 1, 'the first attempt');
  await svc.restart({ hard: true });
  await until(() => deliveriesFor(address).some((d) => d.status === 200), 'the retried notification', 60_000);
  // Logged with its outbox entry removed: once the success is in the history, nothing is pending.
  const id = ((await (await svc.api(acct.api_key, 'GET', '/v1/webhooks')).json()) as Json).data.find((w: Json) => w.inbox === address)._id;
  await until(async () => ((await (await svc.api(acct.api_key, 'GET', `/v1/webhooks/${id}/deliveries`)).json()) as Json).data[0]?.status === 200, 'the success in the history');
  const attempts = deliveriesFor(address);
  t.is(attempts.filter((d) => d.status === 200).length, 1);
  t.is(new Set(attempts.map((a) => a.headers['webhook-id'])).size, 1);
});

/** The receiver's answers to one webhook's URL (they arrive together with its inbox's other webhooks'). */
function scriptFor(tag: string, ...answers: Behaviour[]): void {
  const url = new URL(hookUrl(tag));
  receiver.scripts[url.pathname + url.search] = answers;
}

async function historyOf(url: string): Promise<Json[]> {
  const hooks = ((await (await svc.api(acct.api_key, 'GET', '/v1/webhooks')).json()) as Json).data as Json[];
  const id = hooks.find((w) => w.url === url)!._id;
  return ((await (await svc.api(acct.api_key, 'GET', `/v1/webhooks/${id}/deliveries`)).json()) as Json).data;
}

/** What one webhook of the inbox received of the mails with this subject (not the sentinel's). */
const sentTo = (address: string, tag: string, subject: string) =>
  deliveriesFor(address).filter((d) => d.url.endsWith(`?t=${tag}`) && JSON.parse(d.body).message.subject === subject);

test.serial('webhooks - three webhooks on one inbox: each gets the message under its own webhook-id; only the failing one is retried', async (t) => {
  const address = await inbox();
  for (const tag of ['fan-a', 'fan-b', 'fan-c']) await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: hookUrl(tag), inbox: address });
  scriptFor('fan-b', 500);
  await sendMail(svc.smtpPort, { to: address, subject: 'fan out', text: 'x' });
  await until(() => sentTo(address, 'fan-b', 'fan out').some((d) => d.status === 200), 'the retried webhook to succeed');
  await until(async () => (await historyOf(hookUrl('fan-b')))[0]?.status === 200, 'the retry in the history');
  t.deepEqual((await historyOf(hookUrl('fan-b'))).map((h) => h.status), [200, 500], 'the retry and the failure, newest first');
  await settledBySentinel(address, 'fan');
  t.deepEqual(sentTo(address, 'fan-a', 'fan out').map((d) => d.status), [200]);
  t.deepEqual(sentTo(address, 'fan-c', 'fan out').map((d) => d.status), [200]);
  t.deepEqual(sentTo(address, 'fan-b', 'fan out').map((d) => d.status), [500, 200]);
  const ids = (tag: string) => sentTo(address, tag, 'fan out').map((d) => d.headers['webhook-id']);
  t.is(new Set(ids('fan-b')).size, 1, 'the same webhook-id on the retry');
  t.is(new Set([...ids('fan-a'), ...ids('fan-b'), ...ids('fan-c')]).size, 3, 'a webhook-id per webhook');
});

test.serial('webhooks - killed while one webhook of an inbox has answered and another has not: after the restart only the other gets it again', async (t) => {
  const address = await inbox();
  for (const tag of ['part-a', 'part-b']) await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: hookUrl(tag), inbox: address });
  scriptFor('part-b', 'hang');
  await sendMail(svc.smtpPort, { to: address, subject: 'half done', text: 'x' });
  // part-a's success is in its history: logged, with the outbox no longer holding it for part-a.
  await until(async () => (await historyOf(hookUrl('part-a')))[0]?.status === 200, 'part-a logged');
  await until(() => sentTo(address, 'part-b', 'half done').length === 1, 'part-b reached');
  await svc.restart({ hard: true });
  await until(() => sentTo(address, 'part-b', 'half done').some((d) => d.status === 200), 'part-b sent again after the restart', 60_000);
  await settledBySentinel(address, 'part');
  t.deepEqual(sentTo(address, 'part-a', 'half done').map((d) => d.status), [200], 'part-a is not sent again');
  t.is(new Set(sentTo(address, 'part-b', 'half done').map((d) => d.headers['webhook-id'])).size, 1, 'part-b again under the same webhook-id');
});

test.serial('webhooks - a 5 MB answer and a receiver that never answers are handled', async (t) => {
  const address = await inbox();
  const reg = (await (await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: hookUrl('hostile'), inbox: address })).json()) as Json;
  receiver.script.push('huge');
  await sendMail(svc.smtpPort, { to: address, subject: 'huge', text: 'x' });
  await until(() => deliveriesFor(address).length >= 1, 'the first delivery');
  receiver.script.push('hang');
  await sendMail(svc.smtpPort, { to: address, subject: 'hang', text: 'x' });
  await until(() => deliveriesFor(address).filter((d) => JSON.parse(d.body).message.subject === 'hang').length >= 2, 'two attempts of the hanging notification');
  const history = (await (await svc.api(acct.api_key, 'GET', `/v1/webhooks/${reg.id}/deliveries`)).json()) as Json;
  t.true(history.data.some((h: Json) => h.status === null && /timed out/.test(h.error)), JSON.stringify(history.data));
  t.true(history.data.some((h: Json) => h.status === 200));
});

test.serial('webhooks - a redirect answer is a failed attempt, never followed', async (t) => {
  const address = await inbox();
  await svc.api(acct.api_key, 'POST', '/v1/webhooks', { url: hookUrl('redirect'), inbox: address });
  receiver.script.push(302);
  await sendMail(svc.smtpPort, { to: address, subject: 'moved', text: 'x' });
  await until(() => deliveriesFor(address).length >= 2, 'two deliveries');
  t.deepEqual(deliveriesFor(address).map((d) => d.status), [302, 200]);
});

test('webhooks - hostile registrations are refused as documented', async (t) => {
  const address = await inbox();
  const post = (body: Json, key = acct.api_key) => svc.api(key, 'POST', '/v1/webhooks', body);
  const http = await post({ url: 'http://example.com/hook', inbox: address });
  t.is(http.status, 400);
  t.is(((await http.json()) as Json).error, 'invalid_url');
  t.is(((await (await post({ url: 'not a url', inbox: address })).json()) as Json).error, 'invalid_url');

  const other = await svc.createAccount('growth');
  const foreign = await post({ url: hookUrl('x'), inbox: address }, other.api_key);
  t.is(foreign.status, 403);
  t.is(((await foreign.json()) as Json).error, 'inbox_not_owned');

  const free = await svc.createAccount('free');
  const gated = await post({ url: hookUrl('x'), inbox: address }, free.api_key);
  t.is(gated.status, 403);
  const gatedBody = (await gated.json()) as Json;
  t.is(gatedBody.error, 'plan_required');
  t.is(typeof gatedBody.upgrade_url, 'string');
  t.is((await svc.api(free.api_key, 'GET', '/v1/webhooks')).status, 403);

  for (const id of ['wh_000000000000000000000000', 'nope']) {
    const res = await svc.api(acct.api_key, 'DELETE', `/v1/webhooks/${id}`);
    t.is(res.status, 404);
    t.is(((await res.json()) as Json).error, 'not_found');
  }
  const reg = (await (await post({ url: hookUrl('mine'), inbox: address })).json()) as Json;
  t.is((await svc.api(other.api_key, 'DELETE', `/v1/webhooks/${reg.id}`)).status, 404);
  t.is((await svc.api(other.api_key, 'GET', `/v1/webhooks/${reg.id}/deliveries`)).status, 404);
});

test('webhooks - private targets are refused unless allowed by config', async (t) => {
  const dns = await startDnsServer();
  dns.setA('internal.example.com', ['10.0.0.7']);
  dns.setA('public.example.com', ['93.184.215.14']);
  const strict = await startService({ env: { MAILCUE_DNS_SERVERS: dns.address } });
  try {
    const k = (await strict.createAccount('growth')).api_key;
    const address = ((await (await strict.api(k, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
    for (const url of [
      'https://127.0.0.1/hook', 'https://10.0.0.1/hook', 'https://localhost:8443/hook', 'https://[::1]/hook',
      'https://169.254.169.254/latest', 'https://internal.example.com/hook', 'https://nowhere.example.com/hook',
    ]) {
      const res = await strict.api(k, 'POST', '/v1/webhooks', { url, inbox: address });
      t.is(res.status, 400, url);
      t.is(((await res.json()) as Json).error, 'invalid_url', url);
    }
    const ok = await strict.api(k, 'POST', '/v1/webhooks', { url: 'https://public.example.com/hook', inbox: address });
    t.is(ok.status, 201);
  } finally {
    await strict.stop();
    await dns.close();
  }
});
