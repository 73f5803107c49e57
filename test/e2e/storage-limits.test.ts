// Attack: a greedy tenant fills the service (issue 33, DESIGN §7 "Storage is governed"). A free
// account creating inboxes stops at its plan's limit (REST 400 limit_reached, the CLI a clear
// message and a nonzero exit, an agent tool an error result); outside senders filling one inbox or
// one account get 452 4.2.2 at RCPT; usage is shown beside the limits; other tenants carry on.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sendMail } from '../helpers/mail.js';
import { connectMcp } from '../helpers/mcp.js';
import { SmtpSocket } from '../helpers/smtp-socket.js';
import { runCli, tempConfigHome } from '../helpers/cli.js';
import { startService, type Service } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
const FREE_MESSAGES = 5;
const FREE_BYTES = 400_000;
const GROWTH_INBOXES = 3;

test.before(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-plans-'));
  const plans = path.join(dir, 'plans.json');
  writeFileSync(plans, JSON.stringify({
    free: { maxMessagesPerInbox: FREE_MESSAGES, maxStoredBytes: FREE_BYTES },
    growth: { maxInboxes: GROWTH_INBOXES, webhooksPerInbox: 2 },
  }));
  svc = await startService({ env: { MAILCUE_PLANS_FILE: plans, MAILCUE_RETENTION_INTERVAL_MS: '200', MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true' } });
});
test.after.always(async () => {
  await svc?.stop();
});

async function json(res: Response): Promise<Json> {
  return (await res.json()) as Json;
}

async function newInbox(key: string, body: Json = {}): Promise<string> {
  const res = await svc.api(key, 'POST', '/v1/inboxes', body);
  if (res.status !== 201) throw new Error(`create inbox: ${res.status} ${await res.text()}`);
  return (await json(res)).data.address;
}

async function account(key: string): Promise<Json> {
  return (await json(await svc.api(key, 'GET', '/v1/account'))).data;
}

/** One SMTP transaction on a raw socket: the reply to each recipient, then DATA's (null if none was accepted). */
async function smtpTransaction(recipients: string[], body: string, mailFromArgs = ''): Promise<{ rcpt: string[]; data: string | null }> {
  const { smtp } = await SmtpSocket.open(svc.smtpPort);
  try {
    await smtp.command('EHLO attacker.test');
    await smtp.command(`MAIL FROM:<bulk@attacker.test>${mailFromArgs}`);
    const rcpt: string[] = [];
    for (const r of recipients) rcpt.push(await smtp.command(`RCPT TO:<${r}>`));
    if (!rcpt.some((r) => r.startsWith('250'))) return { rcpt, data: null };
    await smtp.command('DATA');
    return { rcpt, data: await smtp.command(`From: bulk@attacker.test\r\nSubject: fill\r\n\r\n${body}\r\n.`) };
  } finally {
    smtp.close();
  }
}

test.serial('storage - a free account creating inboxes stops at its plan limit (10): 400 limit_reached, concurrent creates too', async (t) => {
  const { api_key: key } = await svc.createAccount('free');
  const answers: { status: number; body: Json }[] = [];
  for (let i = 0; i < 25; i += 5) {
    answers.push(...(await Promise.all(Array.from({ length: 5 }, async () => {
      const res = await svc.api(key, 'POST', '/v1/inboxes', {});
      return { status: res.status, body: await json(res) };
    }))));
  }
  t.is(answers.filter((a) => a.status === 201).length, 10);
  const refused = answers.filter((a) => a.status !== 201);
  t.is(refused.length, 15);
  for (const r of refused) {
    t.is(r.status, 400);
    t.deepEqual(Object.keys(r.body).sort(), ['error', 'message', 'success']);
    t.like(r.body, { success: false, error: 'limit_reached' });
    t.regex(r.body.message, /at most 10 inboxes/);
  }
  const a = await account(key);
  t.like(a, { limits: { inboxes: 10, messages_per_inbox: FREE_MESSAGES, stored_bytes: FREE_BYTES, retention: 86_400 }, usage: { inboxes: 10, messages: 0, bytes: 0 } });
  t.deepEqual(Object.keys(a.usage).sort(), ['bytes', 'inboxes', 'messages']);

  // The CLI: a clear message and a nonzero exit; `mailcue account` shows the usage.
  const env = { MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: key, XDG_CONFIG_HOME: tempConfigHome() };
  const cli = await runCli(['inbox', 'create'], { env });
  t.is(cli.code, 1);
  t.regex(cli.stderr, /at most 10 inboxes/);
  const shown = await runCli(['account'], { env });
  t.is(shown.code, 0);
  t.regex(shown.stdout, /Inboxes\s+10 of 10/);

  // Deleting one frees its slot.
  const victim = ((await json(await svc.api(key, 'GET', '/v1/inboxes'))).data as Json[])[0]!.address;
  t.is((await svc.api(key, 'DELETE', `/v1/inboxes/${victim}`)).status, 200);
  await newInbox(key);
  t.is((await svc.api(key, 'POST', '/v1/inboxes', {})).status, 400);
});

test.serial('storage - an agent tool that creates an inbox over the limit answers an error result', async (t) => {
  const { api_key: key } = await svc.createAccount('growth');
  for (let i = 0; i < GROWTH_INBOXES; i++) await newInbox(key);
  const client = await connectMcp('streamable-http', svc.baseUrl, key);
  try {
    const result = (await client.callTool({ name: 'create_and_wait_for_otp', arguments: { timeout: 10 } })) as Json;
    t.true(result.isError);
    t.regex(result.content[0].text, /at most 3 inboxes/);
  } finally {
    await client.close();
  }
});

test.serial('storage - outside senders filling a free inbox get 452 4.2.2 at RCPT; other tenants are unaffected', async (t) => {
  const { api_key: key } = await svc.createAccount('free');
  const { api_key: otherKey } = await svc.createAccount('free');
  const inbox = await newInbox(key);
  const other = await newInbox(otherKey);
  for (let i = 0; i < FREE_MESSAGES; i++) await sendMail(svc.smtpPort, { to: inbox, subject: `fill ${i}`, text: 'x' });
  // Full now: refused at RCPT, while the other tenant's recipient in the same transaction is taken.
  const tx = await smtpTransaction([inbox, other], 'one more');
  t.regex(tx.rcpt[0]!, /^452 4\.2\.2 /);
  t.regex(tx.rcpt[1]!, /^250 /);
  t.regex(tx.data ?? '', /^250 /);
  t.like(await account(key), { usage: { inboxes: 1, messages: FREE_MESSAGES } });
  t.like(await account(otherKey), { usage: { inboxes: 1, messages: 1 } });
  const again = await smtpTransaction([inbox], 'and again');
  t.regex(again.rcpt[0]!, /^452 4\.2\.2 /, 'still full: the sender keeps retrying, nothing is stored');
  // Deleting a message makes room for exactly one more.
  const [first] = (await json(await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages?limit=1`))).data as Json[];
  t.is((await svc.api(key, 'DELETE', `/v1/inboxes/${inbox}/messages/${first!.id}`)).status, 200);
  t.regex((await smtpTransaction([inbox], 'room again')).data ?? '', /^250 /);
  t.regex((await smtpTransaction([inbox], 'full again')).rcpt[0]!, /^452 4\.2\.2 /);
  t.like(await account(otherKey), { usage: { messages: 1 } }, 'the other tenant was never refused');
  t.like(await account(key), { usage: { messages: FREE_MESSAGES } });
});

test.serial('storage - mail past an account\'s stored bytes answers 452 4.2.2; usage never passes the limit', async (t) => {
  const { api_key: key } = await svc.createAccount('free');
  const inboxes = [await newInbox(key), await newInbox(key)];
  const big = 'y'.repeat(99_000);
  const replies: string[] = [];
  for (let i = 0; i < 8; i++) {
    const tx = await smtpTransaction([inboxes[i % 2]!], `${i} ${big}`);
    replies.push(tx.data ?? tx.rcpt[0]!);
  }
  const stored = replies.filter((r) => r.startsWith('250')).length;
  t.is(stored, 4, replies.join(' | '));
  for (const r of replies.filter((x) => !x.startsWith('250'))) t.regex(r, /^452 4\.2\.2 /);
  const { usage, limits } = await account(key);
  t.true(usage.bytes <= limits.stored_bytes, `${usage.bytes} bytes stored of ${limits.stored_bytes}`);
  t.true(usage.bytes > 4 * 99_000);
  // A declared size that does not fit is refused at RCPT, before any byte is sent.
  const declared = await smtpTransaction([inboxes[0]!], 'small', ' SIZE=50000');
  t.regex(declared.rcpt[0]!, /^452 4\.2\.2 /);
  // The inbox was not full by count: a small mail still fits the bytes left.
  t.regex((await smtpTransaction([inboxes[1]!], 'tiny')).data ?? '', /^250 /);
});

test.serial('storage - retention: an inbox keeps mail only as long as its own retention says; usage follows', async (t) => {
  const { api_key: key } = await svc.createAccount('developer');
  t.is((await svc.api(key, 'POST', '/v1/inboxes', { retention: 0 })).status, 400);
  const tooLong = await svc.api(key, 'POST', '/v1/inboxes', { retention: 8 * 86_400 });
  t.like(await json(tooLong), { success: false, error: 'invalid_parameter', param: 'retention' });
  const shortLived = await newInbox(key, { retention: 1 });
  const kept = await newInbox(key);
  t.like((await json(await svc.api(key, 'GET', `/v1/inboxes/${shortLived}`))).data, { retention: 1 });
  t.like((await json(await svc.api(key, 'GET', `/v1/inboxes/${kept}`))).data, { retention: null });
  await sendMail(svc.smtpPort, { to: [shortLived, kept], subject: 'ephemeral', text: 'gone soon' });
  t.like(await account(key), { usage: { messages: 2 } });
  await until(async () => (await account(key)).usage.messages === 1, 'the short-lived inbox emptied by retention', 15_000);
  t.is((await json(await svc.api(key, 'GET', `/v1/inboxes/${shortLived}/messages`))).count, 0);
  t.is((await json(await svc.api(key, 'GET', `/v1/inboxes/${kept}/messages`))).count, 1);
  // PATCH sets (or clears) an inbox's retention.
  const patched = await svc.api(key, 'PATCH', `/v1/inboxes/${kept}`, { retention: 3600 });
  t.like((await json(patched)).data, { retention: 3600 });
  t.like((await json(await svc.api(key, 'PATCH', `/v1/inboxes/${kept}`, { retention: null }))).data, { retention: null });
});

test.serial('storage - webhooks per inbox are limited by plan: past it, 400 limit_reached', async (t) => {
  const { api_key: key } = await svc.createAccount('growth');
  const inbox = await newInbox(key);
  for (const port of [9001, 9002]) t.is((await svc.api(key, 'POST', '/v1/webhooks', { inbox, url: `https://127.0.0.1:${port}/hook` })).status, 201);
  const third = await svc.api(key, 'POST', '/v1/webhooks', { inbox, url: 'https://127.0.0.1:9003/hook' });
  t.is(third.status, 400);
  t.like(await json(third), { success: false, error: 'limit_reached' });
  t.is((await svc.api(key, 'POST', '/v1/webhooks', { inbox, url: 'https://127.0.0.1:9001/hook' })).status, 200, 'registering an existing one again is no new webhook');
});
