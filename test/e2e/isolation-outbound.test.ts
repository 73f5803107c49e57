// Attack class: webhooks aimed at the service's own network. Targets such as [::7f00:1],
// [64:ff9b:1::…], [2002:7f00:1::1] and [100::1] used to be accepted (issue 11); every IANA
// special-purpose address is now refused at registration (400 invalid_url) and again at every
// connection, so a name that resolves somewhere public at registration and to loopback later
// (DNS rebinding) gets no request.
import test from 'ava';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { assertAlive, parkVictim } from '../helpers/isolation.js';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
let dns: TestDnsServer;

test.before(async () => {
  dns = await startDnsServer();
  svc = await startService({ env: { MAILCUE_DNS_SERVERS: dns.address, MAILCUE_WEBHOOK_RETRY_DELAYS_MS: '100,100,100', MAILCUE_WEBHOOK_TIMEOUT_MS: '1000' } });
});
test.after.always(async () => {
  await svc?.stop();
  await dns?.close();
});

const LITERALS = [
  '[::7f00:1]', '[64:ff9b:1::7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]', '[100::1]', '[::ffff:127.0.0.1]', '[::1]', '[fe80::1]',
  '[fd00::1]', '[2001:db8::1]', '[2001::1]', '127.0.0.1', '10.0.0.1', '169.254.169.254', '100.64.0.1', '192.0.2.1', '0.0.0.0',
];

test('isolation outbound - webhook urls at special-purpose addresses, literal or resolved, answer 400 invalid_url', async (t) => {
  const victim = await parkVictim(svc);
  const { api_key: key } = await svc.createAccount('growth');
  const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  for (const host of LITERALS) {
    const res = await svc.api(key, 'POST', '/v1/webhooks', { url: `https://${host}/hook`, inbox });
    t.is(res.status, 400, host);
    t.is(((await res.json()) as Json).error, 'invalid_url', host);
  }
  dns.setAaaa('nat64.attacker.test', ['64:ff9b:1::a9fe:a9fe']);
  dns.setA('mixed.attacker.test', ['93.184.216.34', '10.1.2.3']);
  for (const host of ['nat64.attacker.test', 'mixed.attacker.test']) {
    const res = await svc.api(key, 'POST', '/v1/webhooks', { url: `https://${host}/hook`, inbox });
    t.is(res.status, 400, host);
  }
  await victim.assertUnaffected(t);
  await assertAlive(t, svc);
});

test('isolation outbound - a name that rebinds to loopback after registration is refused at connect time', async (t) => {
  const victim = await parkVictim(svc);
  const { api_key: key } = await svc.createAccount('growth');
  const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  dns.setA('rebind.attacker.test', ['93.184.216.34']);
  const res = await svc.api(key, 'POST', '/v1/webhooks', { url: 'https://rebind.attacker.test/hook', inbox });
  t.is(res.status, 201);
  const { id } = (await res.json()) as Json;

  dns.setA('rebind.attacker.test', ['127.0.0.1']);
  dns.setAaaa('rebind.attacker.test', ['::7f00:1']);
  await sendMail(svc.smtpPort, { to: inbox, subject: 'rebind', text: 'hello' });
  const deliveries = await until(async () => {
    const d = ((await (await svc.api(key, 'GET', `/v1/webhooks/${id}/deliveries`)).json()) as Json).data as Json[];
    return d.length > 0 && d;
  }, 'a delivery attempt to the rebound address');
  t.is(deliveries[0]!.status, null);
  t.regex(String(deliveries[0]!.error), /non-public address/);
  await victim.assertUnaffected(t);
  await assertAlive(t, svc);
});
