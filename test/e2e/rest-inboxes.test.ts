// End to end: the embedded service driven over REST (fetch) and SMTP (nodemailer).
import test from 'ava';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';
import { assertShape } from '../helpers/shapes.js';
import { parked } from '../helpers/wait.js';

let svc: Service;
let key: string;

test.before(async () => {
  svc = await startService();
  key = (await svc.createAccount('free')).api_key;
});
test.after.always(async () => {
  await svc?.stop();
});

type Json = Record<string, any>;
const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

async function newInbox(address?: string): Promise<string> {
  const res = await svc.api(key, 'POST', '/v1/inboxes', address ? { address } : {});
  if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
  return (await json(res)).data.address;
}

test('inboxes - create with a random or chosen address, list, get, delete', async (t) => {
  const random = await newInbox();
  t.regex(random, /^[a-z0-9]+@mailcue\.test$/);
  const chosen = await newInbox('Agent.Run-1@MailCue.test');
  t.is(chosen, 'agent.run-1@mailcue.test');

  const list = await json(await svc.api(key, 'GET', '/v1/inboxes'));
  t.true(list.success);
  t.true(list.data.some((i: Json) => i.address === random));
  t.true(list.data.some((i: Json) => i.address === chosen));
  t.is(list.count, list.data.length);

  const one = await json(await svc.api(key, 'GET', `/v1/inboxes/${chosen}`));
  t.deepEqual(Object.keys(one.data).sort(), ['address', 'created_at', 'domain', 'message_count', 'require_auth', 'retention', 'unread_count']);
  assertShape(t, 'inbox', one.data, 'GET /v1/inboxes/{address}');
  for (const i of list.data) assertShape(t, 'inbox', i, 'GET /v1/inboxes');
  // The account's usage counts these inboxes (DESIGN §3, §7).
  const account = await json(await svc.api(key, 'GET', '/v1/account'));
  assertShape(t, 'account', account.data, 'GET /v1/account');

  const taken = await svc.api(key, 'POST', '/v1/inboxes', { address: chosen });
  t.is(taken.status, 409);
  t.is((await json(taken)).error, 'address_taken');

  const del = await svc.api(key, 'DELETE', `/v1/inboxes/${chosen}`);
  t.is(del.status, 200);
  t.true((await json(del)).success);
  t.is((await svc.api(key, 'GET', `/v1/inboxes/${chosen}`)).status, 404);
});

test('messages - text, html, attachment and non-ASCII subject read back through every endpoint', async (t) => {
  const inbox = await newInbox();
  const attachment = Buffer.from([0, 1, 2, 3, 250, 251, 252, 253, 254, 255]);
  const sent = await sendMail(svc.smtpPort, {
    to: inbox,
    subject: 'Ваш код — 482913 ✓',
    text: 'Your verification code is 482913.',
    html: '<p>Your verification code is <b>482913</b>. <a href="https://app.example.com/verify?t=abc">Verify</a></p>',
    attachments: [{ filename: 'report.bin', content: attachment, contentType: 'application/octet-stream' }],
  });
  t.regex(sent.response, /^250/);

  const list = await json(await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages`));
  t.deepEqual(Object.keys(list), ['success', 'count', 'data'], 'the list the shard wrote is spliced after success, once');
  t.true(list.success);
  t.is(list.count, 1);
  const summary = list.data[0];
  t.regex(summary.id, /^msg_/);
  t.is(summary.subject, 'Ваш код — 482913 ✓');
  t.is(summary.from, 'sender@example.com');
  t.deepEqual(summary.to, [inbox]);
  t.true(summary.has_attachment);
  t.is(summary.otp, '482913');
  t.is(summary.read, false);
  t.regex(summary.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assertShape(t, 'message_summary', summary, 'GET …/messages');

  const full = await json(await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${summary.id}`));
  t.is(full.data.text.trim(), 'Your verification code is 482913.');
  t.true(full.data.html.includes('<b>482913</b>'));
  t.deepEqual(full.data.attachments, [{ filename: 'report.bin', content_type: 'application/octet-stream', size: attachment.length }]);
  t.is(full.data.read, true);
  t.is(typeof full.data.headers, 'object');
  assertShape(t, 'full_message', full.data, 'GET …/messages/{id}');
  // Why each value was picked (or is null); the summary keeps its shape.
  t.regex(full.data.extraction.otp_reason, /labelled by "code"/);
  t.regex(full.data.extraction.link_reason, /"Verify"/);
  t.false('extraction' in summary);

  const unread = await json(await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages?unread_only=true`));
  t.is(unread.count, 0);

  const rawRes = await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${summary.id}/raw`);
  t.is(rawRes.headers.get('content-type'), 'message/rfc822');
  const raw = await rawRes.text();
  t.true(raw.includes('Content-Type: multipart/mixed'));
  t.true(raw.includes('report.bin'));

  const att = await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${summary.id}/attachments/0`);
  t.is(att.status, 200);
  t.is(att.headers.get('content-type'), 'application/octet-stream');
  t.deepEqual(Buffer.from(await att.arrayBuffer()), attachment);
  t.is((await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${summary.id}/attachments/1`)).status, 404);

  const del = await svc.api(key, 'DELETE', `/v1/inboxes/${inbox}/messages/${summary.id}`);
  t.is(del.status, 200);
  t.is((await json(await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages`))).count, 0);
});

test('messages - limit is honoured and newest come first', async (t) => {
  const inbox = await newInbox();
  for (let i = 0; i < 3; i++) await sendMail(svc.smtpPort, { to: inbox, subject: `n${i}`, text: 'hello' });
  const two = await json(await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages?limit=2`));
  t.deepEqual(two.data.map((m: Json) => m.subject), ['n2', 'n1']);
  const bad = await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages?limit=101`);
  t.is(bad.status, 400);
  const body = await json(bad);
  t.is(body.error, 'invalid_parameter');
  t.regex(body.message, /limit/);
});

// Serial: the parked-waiters gauge then counts this test's long-poll alone.
test.serial('wait - a long-poll started before the mail returns it; since skips older mail; timeout answers 200', async (t) => {
  const inbox = await newInbox();
  const pending = svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/wait?timeout=10`);
  await parked(svc);
  await sendMail(svc.smtpPort, { to: inbox, subject: 'first', text: 'code 1234' });
  const first = await json(await pending);
  t.is(first.timed_out, false);
  t.is(first.data.subject, 'first');
  t.is(first.cursor, first.data.id, 'the cursor is the id of the message answered');
  assertShape(t, 'message_summary', first.data, 'GET …/messages/wait');

  await sendMail(svc.smtpPort, { to: inbox, subject: 'second', text: 'hi' });
  const after = await json(await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/wait?timeout=10&since=${first.data.id}`));
  t.is(after.data.subject, 'second');

  const none = await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/wait?timeout=10&since=${after.data.id}`);
  t.is(none.status, 200);
  // A timeout answers with the cursor it waited from (issue 36): waiting again from it repeats nothing.
  t.deepEqual(await json(none), { success: true, timed_out: true, data: null, cursor: after.data.id });

  const bad = await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/wait?timeout=5`);
  t.is(bad.status, 400);
});

test.serial('wait - a disconnected long-poll leaves no parked waiter', async (t) => {
  const inbox = await newInbox();
  const controller = new AbortController();
  const pending = fetch(`${svc.baseUrl}/v1/inboxes/${inbox}/messages/wait?timeout=60`, {
    headers: { authorization: `Bearer ${key}` }, signal: controller.signal,
  }).catch(() => null);
  await parked(svc);
  t.is(await svc.parkedWaiters(), 1);
  controller.abort();
  await pending;
  await parked(svc, 0, { exactly: true });
  t.is(await svc.parkedWaiters(), 0);
});

test('errors - 550 unknown recipient, 552 oversize, 401, 404 for another account, 400 malformed, in the documented shape', async (t) => {
  const err = await t.throwsAsync(sendMail(svc.smtpPort, { to: 'nobody@mailcue.test', subject: 'x', text: 'x' }));
  t.regex(String((err as any).response ?? err!.message), /^550 5\.1\.1/);

  const small = await startService({ env: { MAILCUE_MAX_MESSAGE_BYTES: '2048' } });
  try {
    const k = (await small.createAccount('free')).api_key;
    const box = (await (await small.api(k, 'POST', '/v1/inboxes', {})).json() as Json).data.address;
    const big = await t.throwsAsync(sendMail(small.smtpPort, { to: box, subject: 'big', text: 'x'.repeat(10_000) }));
    t.regex(String((big as any).response ?? big!.message), /^552/);
  } finally {
    await small.stop();
  }

  for (const auth of [undefined, 'Bearer nope', `Bearer ${key}x`]) {
    const res = await fetch(`${svc.baseUrl}/v1/inboxes`, { headers: auth ? { authorization: auth } : {} });
    t.is(res.status, 401);
    t.is(res.headers.get('www-authenticate'), 'Bearer');
    const body = await json(res);
    t.is(body.success, false);
    t.is(body.error, 'unauthorized');
    t.is(typeof body.message, 'string');
  }

  const mine = await newInbox();
  const other = (await svc.createAccount('free')).api_key;
  const foreign = await svc.api(other, 'GET', `/v1/inboxes/${mine}/messages`);
  t.is(foreign.status, 404);
  t.is((await json(foreign)).error, 'inbox_not_found');

  const badEncoding = await svc.api(key, 'GET', '/v1/inboxes/%E0%A4%A/messages');
  t.is(badEncoding.status, 404);
  t.is((await json(badEncoding)).error, 'inbox_not_found');
  t.is((await fetch(`${svc.baseUrl}/livez`)).status, 200, 'the service is still up');

  const malformed = await fetch(`${svc.baseUrl}/v1/inboxes`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{nope' });
  t.is(malformed.status, 400);
  t.is((await json(malformed)).error, 'invalid_json');
  const badAddress = await svc.api(key, 'POST', '/v1/inboxes', { address: 'not an address' });
  t.is(badAddress.status, 400);
  t.is((await json(badAddress)).error, 'invalid_address');
  const foreignDomain = await svc.api(key, 'POST', '/v1/inboxes', { address: 'me@gmail.com' });
  t.is(foreignDomain.status, 403);
  t.is((await json(foreignDomain)).error, 'domain_not_verified');
});

test('admin - wrong token is 401; accounts on every plan; CLI creates an account', async (t) => {
  const res = await fetch(`${svc.baseUrl}/admin/v1/accounts`, { method: 'POST', headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' }, body: '{"plan":"free"}' });
  t.is(res.status, 401);
  t.is((await json(res)).error, 'unauthorized');
  for (const plan of ['free', 'developer', 'startup', 'growth', 'enterprise']) {
    const acct = await svc.createAccount(plan);
    t.is(acct.plan, plan);
    t.regex(acct.api_key, /^mc_/);
    assertShape(t, 'admin_account', acct, 'POST /admin/v1/accounts');
  }
  const changed = await json(await svc.admin('PATCH', `/admin/v1/accounts/${(await svc.createAccount('free')).id}`, { plan: 'growth' }));
  assertShape(t, 'admin_account', changed.data, 'PATCH /admin/v1/accounts/{id}');
  t.false('api_key' in changed.data, 'a plan change shows no key');
  const bad = await svc.admin('POST', '/admin/v1/accounts', { plan: 'platinum' });
  t.is(bad.status, 400);
  const cli = await svc.cli(['admin', 'create-account', '--plan', 'growth', '--name', 'cli']);
  t.is(cli.code, 0, cli.stderr);
  const created = JSON.parse(cli.stdout);
  t.is(created.plan, 'growth');
  t.is((await svc.api(created.api_key, 'GET', '/v1/inboxes')).status, 200);
});

test('durability - a message acknowledged with 250 survives a restart', async (t) => {
  const own = await startService({ restartable: true });
  try {
    const k = (await own.createAccount('free')).api_key;
    const inbox = ((await (await own.api(k, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
    await sendMail(own.smtpPort, { to: inbox, subject: 'persist me', text: 'code 9911' });
    await own.restart();
    const list = await json(await own.api(k, 'GET', `/v1/inboxes/${inbox}/messages`));
    t.is(list.data[0]?.subject, 'persist me');
  } finally {
    await own.stop();
  }
});

test('shutdown - a parked long-poll is answered (timed out), not cut, when the service stops', async (t) => {
  const own = await startService();
  const k = (await own.createAccount('free')).api_key;
  const inbox = ((await (await own.api(k, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  const pending = own.api(k, 'GET', `/v1/inboxes/${inbox}/messages/wait?timeout=60`);
  await parked(own);
  const stopped = own.stop();
  const res = await pending;
  t.is(res.status, 200);
  // Timed out, with the cursor to re-issue the wait from (issue 36: every wait answer carries one).
  const { cursor, ...rest } = (await res.json()) as Json;
  t.deepEqual(rest, { success: true, timed_out: true, data: null });
  t.regex(cursor, /^msg_/);
  await stopped;
});
