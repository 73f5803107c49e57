// End to end: `mailcue domains …` against live lookups to a real DNS server on loopback, and
// `mailcue webhooks …` delivering to a real HTTPS receiver, run as the built binary.
import test from 'ava';
import { runCli, tempConfigHome, type CliOptions } from '../helpers/cli.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { startReceiver, type Receiver } from '../helpers/https-receiver.js';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
const MX_HOST = 'mx.mailcue.test';
let svc: Service;
let dns: TestDnsServer;
let receiver: Receiver;
let growth: string;
let free: string;

test.before(async () => {
  dns = await startDnsServer();
  receiver = await startReceiver();
  svc = await startService({
    env: {
      MAILCUE_DNS_SERVERS: dns.address,
      MAILCUE_MX_HOST: MX_HOST,
      MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true',
      MAILCUE_WEBHOOK_CA_FILE: receiver.caFile,
      MAILCUE_WEBHOOK_RETRY_DELAYS_MS: '300,900,1800',
      MAILCUE_WEBHOOK_TIMEOUT_MS: '1000',
    },
  });
  growth = (await svc.createAccount('growth')).api_key;
  free = (await svc.createAccount('free')).api_key;
  receiver.key = growth;
});
test.after.always(async () => {
  await svc?.stop();
  await receiver?.close();
  await dns?.close();
});

function cli(args: string[], options: CliOptions & { key?: string } = {}) {
  return runCli(args, { ...options, env: { MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: options.key ?? growth, XDG_CONFIG_HOME: tempConfigHome(), ...options.env } });
}

async function json(args: string[]): Promise<any> {
  const r = await cli([...args, '--json']);
  if (r.code !== 0) throw new Error(`mailcue ${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

test('cli domains - add prints the two DNS records; verify names what is missing (exit 1), then verifies; list; delete', async (t) => {
  const added = await cli(['domains', 'add', 'Mail.Example.org']);
  t.is(added.code, 0, added.stderr);
  const rows = added.stdout.trim().split('\n').map((l) => l.split('\t'));
  t.is(rows.length, 2, 'the two records, one per line');
  t.deepEqual(rows[0]!.slice(0, 3), ['MX', '@', '10']);
  t.is(rows[0]![3], MX_HOST);
  t.deepEqual(rows[1]!.slice(0, 3), ['TXT', '@', '-']);
  t.regex(rows[1]![3]!, /^mailcue-verification=[0-9a-f]{32}$/);
  const d = (await json(['domains', 'list'])).find((x: Json) => x.domain === 'mail.example.org');
  t.is(d.verified, false);
  t.is(d.txt_record, rows[1]![3]);
  const again = await json(['domains', 'add', 'mail.example.org']);
  t.is(again.txt_record, d.txt_record, 'idempotent');
  t.is(again.dns_records.length, 2);

  dns.setMx('mail.example.org', [{ exchange: MX_HOST, priority: 10 }]);
  const half = await cli(['domains', 'verify', 'mail.example.org']);
  t.is(half.code, 1);
  const [first, ...rest] = half.stderr.split('\n');
  t.regex(first!, /^error: verification_failed: .*TXT/);
  t.notRegex(first!, /\bMX record\b.*missing/i);
  t.true(rest.some((l) => l.includes(d.txt_record)), 'the TXT record still needed is shown');

  dns.setTxt('mail.example.org', [d.txt_record]);
  const ok = await cli(['domains', 'verify', 'mail.example.org']);
  t.is(ok.code, 0, ok.stderr);
  t.true((await json(['domains', 'list'])).find((x: Json) => x.domain === 'mail.example.org').verified);
  t.is((await cli(['domains', 'list', '-q'])).stdout, 'mail.example.org\n');

  const box = await cli(['inbox', 'create', '--domain', 'mail.example.org']);
  t.is(box.code, 0, box.stderr);
  const removed = await json(['domains', 'delete', 'mail.example.org']);
  t.deepEqual(removed.inboxes_removed, [box.stdout.trim()]);
  t.deepEqual(await json(['domains', 'list']), []);
});

test('cli domains - errors: invalid name (1), unknown domain (3), plan below Growth (5) with the upgrade hint', async (t) => {
  const invalid = await cli(['domains', 'add', 'not a domain']);
  t.is(invalid.code, 1);
  t.regex(invalid.stderr, /^error: invalid_domain: /);
  const unknown = await cli(['domains', 'verify', 'nowhere.example.net']);
  t.is(unknown.code, 3);
  t.regex(unknown.stderr, /^error: domain_not_found: .+\nhint: mailcue domains list/);
  t.is((await cli(['domains', 'delete', 'nowhere.example.net'])).code, 3);
  const plan = await cli(['domains', 'list'], { key: free });
  t.is(plan.code, 5);
  t.regex(plan.stderr, /^error: plan_required: .+\nhint: upgrade to Growth or Enterprise: http:\/\/127\.0\.0\.1:\d+\/upgrade\n$/);
});

test('cli webhooks - add, list, deliveries after a real delivery, delete; errors exit 3, 5 and 1', async (t) => {
  const inbox = (await cli(['inbox', 'create'])).stdout.trim();
  const url = `${receiver.url}?t=cli`;
  const added = await cli(['webhooks', 'add', inbox, url]);
  t.is(added.code, 0, added.stderr);
  const id = added.stdout.trim();
  t.regex(id, /^wh_/);
  const same = await json(['webhooks', 'add', inbox, url]);
  t.deepEqual(same, { id, inbox, url });

  const list = await json(['webhooks', 'list']);
  t.is(list.find((w: Json) => w._id === id).inbox, inbox);
  t.true((await cli(['webhooks', 'list', '--all', '-q'])).stdout.split('\n').includes(id));

  await sendMail(svc.smtpPort, { to: inbox, subject: 'hook', text: 'Your code is 1234' });
  await receiver.waitFor(1);
  let history: Json[] = [];
  for (let i = 0; i < 200 && history.length === 0; i++) {
    history = await json(['webhooks', 'deliveries', id]);
    if (history.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  t.is(history[0]!.status, 200);
  const table = await cli(['webhooks', 'deliveries', id]);
  t.regex(table.stdout, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\t200\t\d+ ms\t-$/m);

  const del = await cli(['webhooks', 'delete', id]);
  t.is(del.code, 0);
  const gone = await cli(['webhooks', 'delete', id]);
  t.is(gone.code, 3);
  t.regex(gone.stderr, /^error: not_found: /);
  t.is((await cli(['webhooks', 'deliveries', 'wh_nope'])).code, 3);
  t.is((await cli(['webhooks', 'list'], { key: free })).code, 5);
  const insecure = await cli(['webhooks', 'add', inbox, 'http://example.com/hook']);
  t.is(insecure.code, 1);
  t.regex(insecure.stderr, /^error: invalid_url: /);
});
