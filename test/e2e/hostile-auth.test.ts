// Attacks on sender authentication (issue 33): a mail with 1,500 DKIM-Signature fields that differ
// in l= (9.2 MB), the 230 KB variant with valid body hashes and a selector each, and spoofed
// author forms against a bank that publishes DMARC p=reject. Real SMTP, a real DNS server on
// loopback. The check runs in the pool with at most 10 signature checks and bounded DNS queries;
// the attack mail gets 250, another tenant's mail and REST are unaffected; spoofed forms are fail.
import test from 'ava';
import { createHash, generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { HOSTILE_SHAPES, repeatTo } from '../helpers/hostile-mail.js';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;
let dns: TestDnsServer;
let attacker: { key: string; inbox: string };
let victim: { key: string; inbox: string };
const BEFORE_ALL = 'msg_0000000000000000000';
const SELECTOR = 'bank2026';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const DKIM_RECORD = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`.match(/.{1,250}/g)!;

async function account(requireAuth = false): Promise<{ key: string; inbox: string }> {
  const { api_key: key } = await svc.createAccount('growth');
  const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', requireAuth ? { require_auth: true } : {})).json()) as Json).data.address as string;
  return { key, inbox };
}

test.before(async () => {
  dns = await startDnsServer();
  svc = await startService({ env: { MAILCUE_DNS_SERVERS: dns.address, MAILCUE_AUTH_TIMEOUT_MS: '8000' } });
  // The bank: SPF that does not list loopback, its key, DMARC p=reject.
  dns.setTxt('bank.example', ['v=spf1 -all']);
  dns.setTxt('_dmarc.bank.example', ['v=DMARC1; p=reject']);
  dns.setTxt(`${SELECTOR}._domainkey.bank.example`, [DKIM_RECORD]);
  dns.setTxt('attacker.test', ['v=spf1 ip4:127.0.0.1 -all']);
  dns.setTxt('nodmarc.example', ['v=spf1 -all']);
  attacker = await account();
  victim = await account();
});
test.after.always(async () => {
  await svc?.stop();
  await dns?.close();
});

async function finalMessage(key: string, inbox: string, subject: string): Promise<Json> {
  // Every 250 ms for a minute: two requests a poll stay within the plan's 600 a minute.
  for (let i = 0; i < 240; i++) {
    const list = (await (await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages?limit=20`)).json()) as Json;
    if (!list.data) throw new Error(`listing ${inbox}: ${JSON.stringify(list)}`);
    const id = list.data.find((m: Json) => m.subject === subject)?.id;
    if (id) {
      const full = (await (await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${id}`)).json()) as Json;
      if (full.data.authentication.pending === false) return full.data;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no finished message "${subject}" in ${inbox}`);
}

const sendRaw = (to: string, from: string, raw: string | Buffer) => sendMail(svc.smtpPort, { envelope: { from, to: [to] }, raw });

/** Simple body canonicalization (RFC 6376 §3.4.3): trailing empty lines reduced to one CRLF. */
function simpleBodyHash(body: string): string {
  return createHash('sha256').update(body.replace(/(\r\n)*$/, '\r\n')).digest('base64');
}

function signatures(n: number, tag: (i: number) => string, bh: string): string {
  return Array.from({ length: n }, (_, i) => `DKIM-Signature: v=1; a=rsa-sha256; c=simple/simple; d=attacker.test; ${tag(i)}; h=from:subject; bh=${bh}; b=${'A'.repeat(340)}\r\n`).join('');
}

const domainKeyQueries = (domain: string) => dns.queries.filter((q) => q.includes(`._domainkey.${domain}`)).length;

test.serial('hostile auth - 1,500 DKIM signatures differing in l= over 9.2 MB: 250, at most 10 checks, other tenants unaffected', async (t) => {
  const body = repeatTo('Lorem ipsum dolor sit amet, consectetur adipiscing elit.\r\n', 9 * 1024 * 1024);
  const raw = `${signatures(1_500, (i) => `s=one; l=${i + 1}`, simpleBodyHash(body))}From: x@attacker.test\r\nTo: ${attacker.inbox}\r\nSubject: many signatures\r\n\r\n${body}`;
  const before = domainKeyQueries('attacker.test');
  const attack = sendRaw(attacker.inbox, 'x@attacker.test', raw);
  // Meanwhile another tenant reads and receives mail.
  const started = Date.now();
  const account = await svc.api(victim.key, 'GET', '/v1/account');
  t.is(account.status, 200);
  const readMs = Date.now() - started;
  const sent = await sendMail(svc.smtpPort, { to: victim.inbox, subject: 'beside the signatures', text: 'Your verification code is 604211.' });
  t.regex(sent.response, /^250/);
  const list = (await (await svc.api(victim.key, 'GET', `/v1/inboxes/${victim.inbox}/messages?limit=1`)).json()) as Json;
  t.like(list.data[0], { subject: 'beside the signatures', otp: '604211' });
  t.true(readMs < 5_000, `another tenant's read took ${readMs} ms`);
  const answer = await attack;
  t.regex(answer.response, /^250/, 'the attack mail is taken (a 451 would make its sender retry it)');
  const stored = await finalMessage(attacker.key, attacker.inbox, 'many signatures');
  t.true(stored.authentication.dkim.length <= 10, `${stored.authentication.dkim.length} signatures checked`);
  t.is(stored.authentication.dkim_unchecked, 1_500 - stored.authentication.dkim.length);
  t.true(domainKeyQueries('attacker.test') - before <= 10, 'at most 10 key lookups');
  t.true(stored.authentication.dkim.every((d: Json) => d.result === 'permerror' || d.result === 'fail'), 'no signature without a key, or with a body hash that does not match, passes');
});

test.serial('hostile auth - the 230 KB variant with valid body hashes and 1,500 selectors makes at most 10 key lookups', async (t) => {
  const body = 'Your code is 123456.\r\n';
  const raw = `${signatures(1_500, (i) => `s=k${i}`, simpleBodyHash(body))}From: x@attacker.test\r\nTo: ${attacker.inbox}\r\nSubject: many selectors\r\n\r\n${body}`;
  t.true(raw.length > 200_000);
  const before = domainKeyQueries('attacker.test');
  const answer = await sendRaw(attacker.inbox, 'x@attacker.test', raw);
  t.regex(answer.response, /^250/);
  const stored = await finalMessage(attacker.key, attacker.inbox, 'many selectors');
  t.true(domainKeyQueries('attacker.test') - before <= 10, `${domainKeyQueries('attacker.test') - before} key lookups`);
  t.is(stored.authentication.dkim.length, 10);
});

for (const shape of ['folded-header', 'huge-headers']) {
  test.serial(`hostile auth - a 6 MB header section (${shape}) is checked in bounded time, and another tenant's check does not wait behind it`, async (t) => {
    // mailauth joins folded lines one at a time: its check of this header section ran for hours on
    // the auth thread every tenant's check shares, and each later check stayed pending behind it.
    const raw = HOSTILE_SHAPES.find((s) => s.name === shape)!.build('x@attacker.test', attacker.inbox);
    const answer = await sendRaw(attacker.inbox, 'x@attacker.test', raw);
    t.regex(answer.response, /^250/);
    // Its 6 MB header section is past what the parser reads: it is kept unparsed, without a subject.
    const newest = (await (await svc.api(attacker.key, 'GET', `/v1/inboxes/${attacker.inbox}/messages?limit=1`)).json()) as Json;
    const hostileId = newest.data[0].id as string;
    const subject = `after ${shape}`;
    const sent = await sendMail(svc.smtpPort, { from: `after-${shape}@attacker.test`, to: victim.inbox, subject, text: 'Your verification code is 515151.' });
    t.regex(sent.response, /^250/);
    const checked = await finalMessage(victim.key, victim.inbox, subject);
    t.is(checked.authentication.spf, 'pass', 'the other tenant\'s mail got its own, finished check');
    let hostile: Json = {};
    for (let i = 0; i < 40 && hostile.data?.authentication.pending !== false; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      hostile = (await (await svc.api(attacker.key, 'GET', `/v1/inboxes/${attacker.inbox}/messages/${hostileId}`)).json()) as Json;
    }
    t.false(hostile.data.authentication.pending, 'the attack mail\'s own check finished too');
  });
}

/** The bank's own signed mail: the genuine code a require_auth wait must answer. */
async function genuine(to: string, code: string): Promise<void> {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: { domainName: 'bank.example', keySelector: SELECTOR, privateKey: PRIVATE_PEM } });
  const info = (await composer.sendMail({ from: 'security@bank.example', to, subject: 'genuine', text: `Your code is ${code}.` })) as unknown as { message: Buffer };
  await sendRaw(to, 'security@bank.example', info.message);
}

const SPOOFS: { name: string; header: string; from?: string }[] = [
  { name: 'several authors in one From field', header: 'From: security@bank.example, x@attacker.test' },
  { name: 'two From fields', header: 'From: security@bank.example\r\nFrom: x@attacker.test' },
  { name: 'an author domain that does not parse', header: 'From: security@bank..example' },
  {
    name: 'a DKIM signature whose key does not exist',
    header: 'DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=bank.example; s=gone; h=from:subject; bh=AAAA; b=AAAA\r\nFrom: security@bank.example',
  },
  {
    name: 'a key that does not exist, at a domain without DMARC',
    header: 'DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=nodmarc.example; s=gone; h=from:subject; bh=AAAA; b=AAAA\r\nFrom: alerts@nodmarc.example',
  },
];

test.serial('hostile auth - spoofed author forms are fail, every author is shown, and a require_auth wait answers only the genuine code', async (t) => {
  const target = await account(true);
  for (const [i, spoof] of SPOOFS.entries()) {
    const subject = `spoof ${i}`;
    const answer = await sendRaw(target.inbox, 'x@attacker.test', `${spoof.header}\r\nTo: ${target.inbox}\r\nSubject: ${subject}\r\n\r\nYour code is 99999${i}.\r\n`);
    t.regex(answer.response, /^250/);
    const stored = await finalMessage(target.key, target.inbox, subject);
    t.is(stored.auth ?? stored.authentication.summary, 'fail', `${spoof.name}: ${JSON.stringify(stored.authentication)}`);
    if (spoof.header.includes('attacker.test')) t.true(String(stored.from).includes('x@attacker.test'), `${spoof.name}: from shows ${stored.from}`);
    if (spoof.header.includes('security@bank.example')) t.true(String(stored.from).includes('security@bank.example'));
  }
  const wait = svc.api(target.key, 'GET', `/v1/inboxes/${target.inbox}/messages/wait?timeout=30&since=${BEFORE_ALL}`);
  await genuine(target.inbox, '424242');
  const answered = (await (await wait).json()) as Json;
  t.false(answered.timed_out);
  t.is(answered.data.otp, '424242', 'the wait passed over every spoofed code');
});
