// Unit cases for reading mailauth's results into the stored record (src/ingress/mail-auth.ts): real
// signatures and seals made with mailauth itself, DNS answered through its documented resolver option.
import test from 'ava';
import { generateKeyPairSync } from 'node:crypto';
import { authenticate, dkimSign, sealMessage } from 'mailauth';
import { authInput, verdictKey } from '../../src/ingress/mail-auth.js';
import { toAuthentication } from '../../src/mail/sender-auth.js';
import { boundSignatures, MAX_CHECKED_HEADER_LINES } from '../../src/mail/signature-limits.js';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_PEM = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const KEY_RECORD = [[`v=DKIM1; k=rsa; p=${keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`]];

const ZONE: Record<string, string[][]> = {
  'TXT s1._domainkey.good.example': KEY_RECORD,
  'TXT arc._domainkey.forwarder.example': KEY_RECORD,
  'TXT good.example': [['v=spf1 ip4:192.0.2.10 -all']],
  'TXT _dmarc.good.example': [['v=DMARC1; p=quarantine']],
};

async function resolver(name: string, rrtype: string): Promise<unknown> {
  const answer = ZONE[`${rrtype} ${name.toLowerCase()}`];
  if (answer) return answer;
  throw Object.assign(new Error('no record'), { code: 'ENOTFOUND' });
}

const MESSAGE = 'From: Bank <noreply@good.example>\r\nTo: agent@mailcue.test\r\nSubject: Code\r\n\r\nYour code is 482913.\r\n';

/** mailauth's documented list form of signatures (its type declarations name only the single one). */
const SIGN_AS_GOOD = { signatureData: [{ signingDomain: 'good.example', selector: 's1', privateKey: PRIVATE_PEM }] } as never;

async function signed(): Promise<string> {
  const { signatures } = await dkimSign(MESSAGE, SIGN_AS_GOOD);
  return signatures + MESSAGE;
}

const check = (raw: string, ip = '192.0.2.10', extra: Record<string, unknown> = {}) =>
  authenticate(raw, { ip, helo: 'mta.good.example', sender: 'noreply@good.example', mta: 'mx.mailcue.test', resolver, disableBimi: true, ...extra } as never);

test('mail auth - a signed message from an allowed IP: every part passes and aligns', async (t) => {
  const a = toAuthentication(await check(await signed()));
  t.deepEqual(a, {
    spf: 'pass', dkim: [{ domain: 'good.example', selector: 's1', result: 'pass' }], dmarc: 'pass', dmarc_policy: 'quarantine',
    arc: null, aligned: true, from_domain: 'good.example', summary: 'pass', pending: false,
  });
});

test('mail auth - a forwarded message keeps its ARC verdict; the broken DKIM signature is a fail', async (t) => {
  // The forwarder checked the original, added a footer (breaking DKIM), and sealed what it had seen.
  const original = await signed();
  const seen = (await check(original)) as { arc: { authResults: string; status: { result: string } } };
  const modified = original.replace('482913.', '482913.\r\n-- sent via a list');
  const seal = await sealMessage(Buffer.from(modified), {
    signingDomain: 'forwarder.example', selector: 'arc', privateKey: PRIVATE_PEM, authResults: seen.arc.authResults, cv: seen.arc.status.result,
  } as never);
  const forwarded = String(seal) + modified;
  const a = toAuthentication(await check(forwarded, '198.51.100.7'));
  t.is(a.arc, 'pass');
  t.is(a.spf, 'fail');
  t.deepEqual(a.dkim.map((d) => d.result), ['fail']);
  t.is(a.dmarc, 'fail');
  t.is(a.summary, 'fail');
});

test('mail auth - an unsigned message has no DKIM entries; a DNS failure is a temperror', async (t) => {
  const a = toAuthentication(await check(MESSAGE, '198.51.100.7'));
  t.deepEqual(a.dkim, []);
  t.is(a.summary, 'fail');
  const broken = async () => {
    throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });
  };
  const b = toAuthentication(await check(await signed(), '192.0.2.10', { resolver: broken }));
  t.is(b.spf, 'temperror');
  t.deepEqual(b.dkim.map((d) => d.result), ['temperror']);
  t.is(b.dmarc, 'temperror');
  t.is(b.summary, 'temperror');
});

test('mail auth - an unsigned message is checked on its header section alone, with the same verdict; a signed or sealed one whole', async (t) => {
  const raw = Buffer.from(MESSAGE);
  const headers = authInput(raw);
  t.is(headers.toString(), MESSAGE.slice(0, MESSAGE.indexOf('\r\n\r\n') + 4));
  for (const ip of ['192.0.2.10', '198.51.100.7']) {
    t.deepEqual(toAuthentication(await check(headers.toString(), ip)), toAuthentication(await check(MESSAGE, ip)), `from ${ip}`);
  }

  // The body is part of a DKIM signature: without it the body hash would not match.
  const dkim = Buffer.from(await signed());
  t.is(authInput(dkim), dkim);
  t.is(toAuthentication(await check(authInput(dkim).toString())).summary, 'pass');
  for (const name of ['DKIM-Signature', 'dkim-signature ', 'ARC-Seal', 'arc-message-signature']) {
    const other = Buffer.from(`${name}: i=1; d=x.example\r\n${MESSAGE}`);
    t.is(authInput(other), other, name);
  }
  // A signature named in the body is no signature; a message without a blank line is read whole.
  const quoted = Buffer.from(`${MESSAGE}DKIM-Signature: quoted\r\n`);
  t.is(authInput(quoted).length, headers.length);
  const headless = Buffer.from('From: a@good.example\r\nSubject: no body');
  t.is(authInput(headless), headless);
});

test('mail auth - the key a verdict is reused by: the envelope and every From field, folded lines too, and nothing else', (t) => {
  const key = (text: string, sender = 'noreply@good.example') => verdictKey(text, '192.0.2.10', 'mta.good.example', sender);
  const base = key('From: Bank <noreply@good.example>\r\nSubject: Code 1');
  t.is(key('Subject: Code 2\r\nFrom: Bank <noreply@good.example>'), base, 'another subject, same From');
  t.not(key('From: Bank <noreply@evil.example>\r\nSubject: Code 1'), base);
  t.not(key('From: Bank\r\n <noreply@evil.example>\r\nSubject: Code 1'), key('From: Bank\r\n <noreply@good.example>\r\nSubject: Code 1'), 'a folded From field is read whole');
  t.not(key('From: Bank <noreply@good.example>\r\nFROM: ceo@evil.example\r\nSubject: Code 1'), base, 'a second From field counts');
  t.not(key('From: Bank <noreply@good.example>\r\nSubject: Code 1', 'other@good.example'), base, 'the MAIL FROM address counts');
  t.not(verdictKey('From: Bank <noreply@good.example>\r\nSubject: Code 1', '192.0.2.11', 'mta.good.example', 'noreply@good.example'), base, 'the client address counts');
});

/** The header lines of a message (up to its blank line). */
const headerLines = (raw: Buffer) => raw.toString('latin1', 0, raw.indexOf('\r\n\r\n')).split('\n').length;
const lines = (n: number, line: string) => line.repeat(n);

test('mail auth - a header section over the line bound is cut to what the verdict reads; a signature over the rest still passes', async (t) => {
  const raw = Buffer.from(await signed());
  const filler = lines(MAX_CHECKED_HEADER_LINES, 'X-Filler: a b c\r\n');
  const within = boundSignatures(raw);
  t.is(within.raw, raw, 'a message within the bounds is read as it is');
  const long = Buffer.from(raw.toString('latin1').replace('\r\nTo: agent', `\r\nX-Folded: a${lines(MAX_CHECKED_HEADER_LINES, '\r\n b')}\r\n${filler}To: agent`), 'latin1');
  const cut = boundSignatures(long);
  t.true(headerLines(cut.raw) <= MAX_CHECKED_HEADER_LINES);
  t.notRegex(cut.raw.toString('latin1'), /X-Filler|X-Folded/);
  t.is(cut.skipped, 0);
  const a = toAuthentication(await check(cut.raw.toString('latin1')));
  t.like(a, { summary: 'pass', dmarc: 'pass', dkim: [{ domain: 'good.example', selector: 's1', result: 'pass' }] });
});

test('mail auth - a signed field over the line bound leaves the signatures unchecked; an author field over it leaves no author, a fail', async (t) => {
  const folded = `Subject: Code${lines(MAX_CHECKED_HEADER_LINES, '\r\n more')}`;
  const { signatures } = await dkimSign(MESSAGE.replace('Subject: Code', folded), SIGN_AS_GOOD);
  const cut = boundSignatures(Buffer.from(signatures + MESSAGE.replace('Subject: Code', folded)));
  t.true(headerLines(cut.raw) <= MAX_CHECKED_HEADER_LINES);
  t.is(cut.skipped, 1);
  const unsignedCheck = toAuthentication(await check(cut.raw.toString('latin1')));
  t.deepEqual(unsignedCheck.dkim, [], 'no signature reaches the verifier, so none passes');
  t.is(unsignedCheck.spf, 'pass', 'SPF and DMARC still judge the envelope and the author');

  const author = `From: Bank${lines(MAX_CHECKED_HEADER_LINES, '\r\n ')} <noreply@good.example>`;
  const noAuthor = boundSignatures(Buffer.from(MESSAGE.replace('From: Bank <noreply@good.example>', author)));
  t.false(noAuthor.raw.toString('latin1').includes('From:'));
  t.like(toAuthentication(await check(noAuthor.raw.toString('latin1'))), { summary: 'fail', author_problem: 'no author address' });
});
