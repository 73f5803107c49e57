import test from 'ava';
import { sendMail } from '../helpers/mail.js';
import { startService } from '../helpers/service.js';

// Test traffic stays on loopback (127.0.0.0/8), DNS included: every received mail's sender check
// asks for SPF and DMARC records, and a service a test starts must ask a server on loopback, never
// the machine's resolver.
test('loopback - a test service asks its DNS questions of a server on loopback', async (t) => {
  const svc = await startService();
  try {
    t.regex(svc.env.MAILCUE_DNS_SERVERS ?? '', /^127\.0\.0\.1:\d+$/);
    const { api_key: key } = await svc.createAccount();
    const res = await svc.api(key, 'POST', '/v1/inboxes', {});
    const { address } = ((await res.json()) as { data: { address: string } }).data;
    await sendMail(svc.smtpPort, { from: 'app@sender.loopback.test', to: address, subject: 'Your code', text: 'Your code is 482913.' });
    const list = await svc.api(key, 'GET', `/v1/inboxes/${address}/messages?limit=1`);
    t.is(((await list.json()) as { data: { otp: string }[] }).data[0]?.otp, '482913');
    // The SPF lookup of the sender's domain reached the loopback server.
    t.true(svc.dns!.queries.includes('TXT sender.loopback.test'), svc.dns!.queries.join(', '));
  } finally {
    await svc.stop();
  }
});
