// End to end: idempotent ingest (DESIGN.md §8). A message is its raw bytes plus its envelope (MAIL
// FROM and every RCPT TO the client named): sent again, it is answered 250 and not stored twice, its
// webhook fires once; the same bytes to another recipient list are another message. Raw SMTP, so
// that both sends carry the very same bytes (a client library makes a new Message-ID each time).
import test from 'ava';
import { staticSlotOwners } from '../../src/cluster/static-slots.js';
import { slotOf } from '../../src/cluster/slots.js';
import { startReceiver, type Receiver } from '../helpers/https-receiver.js';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';
import { SmtpSocket } from '../helpers/smtp-socket.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
let receiver: Receiver;
let key: string;

test.before(async () => {
  receiver = await startReceiver();
  svc = await startService({
    env: { MAILCUE_SHARD_COUNT: '2', MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true', MAILCUE_WEBHOOK_CA_FILE: receiver.caFile },
  });
  key = (await svc.createAccount('growth')).api_key;
  receiver.key = key;
});
test.after.always(async () => {
  await svc?.stop();
  await receiver?.close();
});

let made = 0;
/** A new inbox on embedded shard `shard` (of 2), so a test can spread recipients over both. */
async function inbox(shard = 0): Promise<string> {
  const owners = staticSlotOwners(2);
  let address: string;
  do address = `idem-${process.pid}-${made++}@mailcue.test`;
  while (owners[slotOf(address)] !== shard);
  const res = await svc.api(key, 'POST', '/v1/inboxes', { address });
  if (res.status !== 201) throw new Error(`inbox ${address}: ${res.status}`);
  return address;
}

function rawMail(tag: string): Buffer {
  return Buffer.from(
    `From: Sender <sender@example.com>\r\nTo: someone@mailcue.test\r\nSubject: ${tag}\r\nDate: Mon, 05 Jan 2026 10:00:00 +0000\r\n` +
      `Message-ID: <${tag}@example.com>\r\n\r\nYour code is 482913\r\n`,
  );
}

/** One SMTP transaction: every RCPT's reply and the reply to the end of DATA. */
async function send(rcpts: string[], raw: Buffer, from = 'sender@example.com'): Promise<{ rcpt: string[]; data: string }> {
  const { smtp } = await SmtpSocket.open(svc.smtpPort);
  try {
    await smtp.command('EHLO client.test');
    await smtp.command(`MAIL FROM:<${from}>`);
    const rcpt: string[] = [];
    for (const r of rcpts) rcpt.push(await smtp.command(`RCPT TO:<${r}>`));
    const go = await smtp.command('DATA');
    if (!go.startsWith('354')) throw new Error(`DATA answered ${go}`);
    // The raw ends in CRLF, so the end of data is just ".\r\n" (no body line starts with a dot).
    await smtp.write(Buffer.concat([raw, Buffer.from('.\r\n')]));
    const data = await smtp.reply();
    await smtp.command('QUIT');
    return { rcpt, data };
  } finally {
    smtp.close();
  }
}

async function ids(address: string): Promise<string[]> {
  const list = (await (await svc.api(key, 'GET', `/v1/inboxes/${address}/messages?limit=100`)).json()) as Json;
  return list.data.map((m: Json) => m.id);
}

test('idempotent ingest - the same raw message and envelope sent twice: 250 both times, one copy, one webhook', async (t) => {
  const address = await inbox();
  const hook = `${receiver.url}?t=twice`;
  t.is((await svc.api(key, 'POST', '/v1/webhooks', { url: hook, inbox: address })).status, 201);
  const raw = rawMail('twice');

  t.regex((await send([address], raw)).data, /^250 /);
  t.regex((await send([address], raw)).data, /^250 /, 'the resend is accepted');
  const [id] = await ids(address);
  t.deepEqual(await ids(address), [id]);
  const box = (await (await svc.api(key, 'GET', `/v1/inboxes/${address}`)).json()) as Json;
  t.is(box.data.message_count, 1);
  const rawBack = Buffer.from(await (await svc.api(key, 'GET', `/v1/inboxes/${address}/messages/${id}/raw`)).arrayBuffer());
  t.true(rawBack.equals(raw));

  // A later mail's notification commits and is sent after any the resend could have caused.
  await sendMail(svc.smtpPort, { to: address, subject: 'later', text: 'x' });
  const hooked = () => receiver.deliveries.filter((d) => hook.endsWith(d.url) && d.status === 200).map((d) => JSON.parse(d.body).message.subject as string);
  await until(() => hooked().includes('later'), 'the webhook of the later mail');
  t.deepEqual(hooked().filter((s) => s === 'twice'), ['twice'], 'one notification for the message sent twice');
});

test('idempotent ingest - recipients on both shards: the resend stores nothing on either', async (t) => {
  const [a, b] = [await inbox(0), await inbox(1)];
  const raw = rawMail('two-shards');
  t.regex((await send([a, b], raw)).data, /^250 /);
  t.regex((await send([b, a.toUpperCase()], raw)).data, /^250 /, 'RCPT order and case do not make it another message');
  t.is((await ids(a)).length, 1);
  t.is((await ids(b)).length, 1);
});

test('idempotent ingest - the same raw to another recipient list is another message for every inbox it reaches', async (t) => {
  const [a, b] = [await inbox(0), await inbox(1)];
  const raw = rawMail('other-envelope');
  t.regex((await send([a], raw)).data, /^250 /);
  t.regex((await send([a, b], raw)).data, /^250 /);
  t.is((await ids(a)).length, 2, 'a holds it once per envelope');
  t.is((await ids(b)).length, 1);
  t.regex((await send([a], raw, 'other@example.com')).data, /^250 /);
  t.is((await ids(a)).length, 3, 'another sender is another envelope too');
});

test('idempotent ingest - a recipient refused at RCPT on the retry is still part of its envelope: the others keep one copy', async (t) => {
  const [a, b] = [await inbox(0), await inbox(1)];
  const raw = rawMail('refused-on-retry');
  t.regex((await send([a, b], raw)).data, /^250 /);
  // As when b's shard is down: the retry names b again but b is refused at RCPT this time. (A
  // mail to b alone first clears the front's cache of recently confirmed recipients.)
  t.is((await svc.api(key, 'DELETE', `/v1/inboxes/${b}`)).status, 200);
  t.regex((await send([b], rawMail('clears-the-cache'))).data, /^550 /);
  const retry = await send([a, b], raw);
  t.deepEqual(retry.rcpt.map((r) => r.slice(0, 3)), ['250', '550']);
  t.regex(retry.data, /^250 /);
  t.is((await ids(a)).length, 1);
});

test('idempotent ingest - after the copy is deleted, the same message is stored again', async (t) => {
  const address = await inbox();
  const raw = rawMail('deleted');
  t.regex((await send([address], raw)).data, /^250 /);
  const [first] = await ids(address);
  t.is((await svc.api(key, 'DELETE', `/v1/inboxes/${address}/messages/${first}`)).status, 200);
  t.regex((await send([address], raw)).data, /^250 /);
  const again = await ids(address);
  t.is(again.length, 1);
  t.not(again[0], first);
});
