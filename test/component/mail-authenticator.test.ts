// Component: the sender checks of MailAuthenticator against a real DNS server on loopback. A
// verdict of an unsigned message is reused for the next message with the same envelope and From
// fields while its DNS answers are cached; these cases fail if the reuse ignored the From field or
// the MAIL FROM address, or kept a verdict made from a failed lookup.
import test from 'ava';
import { loadConfig } from '../../src/config/config.js';
import { MailAuthenticator, type SmtpEnvelope } from '../../src/ingress/mail-auth.js';
import { checkSender } from '../../src/mail/sender-auth.js';
import { createLogger } from '../../src/obs/logger.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

let dns: TestDnsServer;
let auth: MailAuthenticator;

test.before(async () => {
  dns = await startDnsServer();
  auth = new MailAuthenticator(loadConfig({ MAILCUE_DNS_SERVERS: dns.address }), createLogger('silent', 'test'), async () => undefined, (input) => checkSender(input));
});
test.after.always(() => dns?.close());

const session = (mailFrom: string): SmtpEnvelope => ({ remoteAddress: '127.0.0.1', hostNameAppearsAs: 'mta.test', envelope: { mailFrom: { address: mailFrom } } }) as SmtpEnvelope;
const mail = (from: string, subject: string) => Buffer.from(`From: Sender <${from}>\r\nTo: agent@mailcue.test\r\nSubject: ${subject}\r\n\r\nYour code is 482913.\r\n`);
const check = (raw: Buffer, mailFrom: string) => auth.begin(raw, session(mailFrom)).final;

test.serial('mail authenticator - the same envelope passes again; another From field in it gets its own verdict', async (t) => {
  dns.setTxt('one.example', ['v=spf1 ip4:127.0.0.1 -all']);
  dns.setTxt('_dmarc.one.example', ['v=DMARC1; p=reject']);
  dns.setTxt('_dmarc.two.example', ['v=DMARC1; p=reject']);
  const first = await check(mail('noreply@one.example', 'first'), 'noreply@one.example');
  t.like(first, { spf: 'pass', dmarc: 'pass', aligned: true, summary: 'pass' });
  t.like(await check(mail('noreply@one.example', 'second'), 'noreply@one.example'), { spf: 'pass', dmarc: 'pass', summary: 'pass' });
  // The same envelope with a From at a domain it does not align with: DMARC fails.
  t.like(await check(mail('ceo@two.example', 'spoofed'), 'noreply@one.example'), { spf: 'pass', dmarc: 'fail', aligned: false, from_domain: 'two.example' });
});

test.serial('mail authenticator - an SPF macro on the sender\'s local part: each MAIL FROM gets its own verdict', async (t) => {
  dns.setTxt('macro.example', ['v=spf1 exists:%{l}.allowed.macro.example -all']);
  dns.setA('alice.allowed.macro.example', ['127.0.0.2']);
  t.like(await check(mail('alice@macro.example', 'a'), 'alice@macro.example'), { spf: 'pass' });
  t.like(await check(mail('alice@macro.example', 'b'), 'bob@macro.example'), { spf: 'fail' });
});

test.serial('mail authenticator - a verdict made from a failed lookup is not kept: the next message asks again', async (t) => {
  dns.setTxt('flaky.example', ['v=spf1 ip4:127.0.0.1 -all']);
  dns.setMode('flaky.example', 'servfail');
  t.like(await check(mail('noreply@flaky.example', 'one'), 'noreply@flaky.example'), { spf: 'temperror' });
  dns.setMode('flaky.example', null);
  t.like(await check(mail('noreply@flaky.example', 'two'), 'noreply@flaky.example'), { spf: 'pass' });
});

// RFC 9989's DNS Tree Walk (mailauth's DMARC) asks for _dmarc at every label up to the top-level
// domain, up to 8 names: a sender whose domain has three labels and no DMARC record anywhere made
// 3, the cap was 2, and every such mail was a temperror, never reused (re-checked per message).
test.serial('mail authenticator - no DMARC record anywhere up a deep domain is none, not temperror, and the verdict is reused', async (t) => {
  const deep = 'mail.a.b.c.d.e.nodmarc.example';
  dns.setTxt(deep, ['v=spf1 ip4:127.0.0.1 -all']);
  const first = await check(mail(`noreply@${deep}`, 'first'), `noreply@${deep}`);
  t.like(first, { spf: 'pass', dmarc: 'none' });
  t.not(first.summary, 'temperror');
  const asked = dns.queries.length;
  t.like(await check(mail(`noreply@${deep}`, 'second'), `noreply@${deep}`), { spf: 'pass', dmarc: 'none' });
  t.is(dns.queries.length, asked, 'the second message of the same envelope asks the DNS nothing');
});
