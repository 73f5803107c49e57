// End to end: custom domains (SEED.md "Custom domains (REST)", DESIGN §3) against the running
// service, verified by live lookups to a real DNS server on loopback, over REST, SMTP and MCP.
import test from 'ava';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { sendMail } from '../helpers/mail.js';
import { connectMcp, type TransportKind } from '../helpers/mcp.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
const MX_HOST = 'mx.mailcue.test';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TXT_VALUE = /^mailcue-verification=[0-9a-f]{32}$/;
const DOMAIN_FIELDS = ['added_at', 'domain', 'mx_record', 'txt_record', 'verified'];

let svc: Service;
let dns: TestDnsServer;

test.before(async () => {
  dns = await startDnsServer();
  svc = await startService({ env: { MAILCUE_DNS_SERVERS: dns.address, MAILCUE_MX_HOST: MX_HOST } });
});
test.after.always(async () => {
  await svc?.stop();
  await dns?.close();
});

const json = async (res: Response): Promise<Json> => (await res.json()) as Json;

async function call(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await svc.api(key, method, path, body);
  return { status: res.status, body: await json(res) };
}

async function growthKey(plan = 'growth'): Promise<string> {
  return (await svc.createAccount(plan)).api_key;
}

async function add(key: string, domain: string): Promise<Json> {
  const res = await call(key, 'POST', '/v1/custom-domains', { domain });
  if (res.status !== 201) throw new Error(`add ${domain}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Publishes the two records the add response asked for. */
function publish(d: Json): void {
  dns.setMx(d.domain, [{ exchange: d.mx_record, priority: 10 }]);
  dns.setTxt(d.domain, ['v=spf1 -all', d.txt_record]);
}

async function addVerified(key: string, domain: string): Promise<Json> {
  const d = await add(key, domain);
  publish(d);
  const res = await call(key, 'POST', `/v1/custom-domains/${domain}/verify`);
  if (res.status !== 200) throw new Error(`verify ${domain}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Sends one message and returns the SMTP reply code nodemailer saw (250 when accepted). */
async function smtpCode(to: string): Promise<number> {
  try {
    const sent = await sendMail(svc.smtpPort, { to, subject: 'Your code', text: 'Your verification code is 731904.' });
    return Number(sent.response.slice(0, 3));
  } catch (err) {
    return (err as { responseCode?: number }).responseCode ?? -1;
  }
}

const pick = (o: Json, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

test('custom domains - add answers 201 with the records to publish, again 200 with the same entry, and the list shows it', async (t) => {
  const key = await growthKey();
  const first = await call(key, 'POST', '/v1/custom-domains', { domain: 'Mail.Add-Test.example.com' });
  t.is(first.status, 201);
  t.deepEqual(Object.keys(first.body).sort(), ['data', 'message', 'success']);
  t.true(first.body.success);
  t.is(typeof first.body.message, 'string');
  const d = first.body.data;
  t.deepEqual(Object.keys(d).sort(), [...DOMAIN_FIELDS, 'dns_records', 'next_step'].sort());
  t.is(d.domain, 'mail.add-test.example.com');
  t.is(d.verified, false);
  t.is(d.mx_record, MX_HOST);
  t.regex(d.txt_record, TXT_VALUE);
  t.regex(d.added_at, ISO_MS);
  t.deepEqual(d.dns_records, [
    { type: 'MX', hostname: '@', value: MX_HOST, priority: '10', ttl: 'Auto' },
    { type: 'TXT', hostname: '@', value: d.txt_record, ttl: 'Auto' },
  ]);
  t.is(d.next_step, 'POST /v1/custom-domains/mail.add-test.example.com/verify');

  const again = await call(key, 'POST', '/v1/custom-domains', { domain: 'mail.add-test.example.com' });
  t.is(again.status, 200);
  t.deepEqual(Object.keys(again.body).sort(), ['data', 'message', 'success']);
  t.true(again.body.success);
  t.is(typeof again.body.message, 'string');
  t.deepEqual(again.body.data, d);

  const second = await add(key, 'second.add-test.example.com');
  t.not(second.txt_record, d.txt_record);
  // The token is per domain and account: another account adding the same name gets its own.
  const other = await add(await growthKey(), 'mail.add-test.example.com');
  t.not(other.txt_record, d.txt_record);

  const list = await call(key, 'GET', '/v1/custom-domains');
  t.is(list.status, 200);
  t.deepEqual(Object.keys(list.body).sort(), ['count', 'data', 'success']);
  t.true(list.body.success);
  t.is(list.body.count, 2);
  t.deepEqual(list.body.data, [pick(d, DOMAIN_FIELDS), pick(second, DOMAIN_FIELDS)]);
});

test('custom domains - verify answers 422 naming the missing record until MX and TXT are published, then 200', async (t) => {
  const key = await growthKey();
  const d = await add(key, 'verify.example.com');
  const path = '/v1/custom-domains/verify.example.com/verify';
  const needed = [
    { type: 'MX', hostname: '@', value: MX_HOST, priority: '10' },
    { type: 'TXT', hostname: '@', value: d.txt_record },
  ];

  const none = await call(key, 'POST', path);
  t.is(none.status, 422);
  t.deepEqual(Object.keys(none.body).sort(), ['dns_records_needed', 'error', 'hint', 'message', 'success', 'verified']);
  t.like(none.body, { success: false, verified: false, error: 'verification_failed' });
  t.regex(none.body.message, /\bMX\b/);
  t.is(typeof none.body.hint, 'string');
  t.true(none.body.hint.length > 0);
  t.deepEqual(none.body.dns_records_needed, needed);
  // A live lookup, of both records, at the DNS server the service was given.
  t.true(dns.queries.includes('MX verify.example.com'));
  t.true(dns.queries.includes('TXT verify.example.com'));

  dns.setMx(d.domain, [{ exchange: MX_HOST, priority: 10 }]);
  const mxOnly = await call(key, 'POST', path);
  t.is(mxOnly.status, 422);
  t.like(mxOnly.body, { success: false, verified: false, error: 'verification_failed' });
  t.regex(mxOnly.body.message, /\bTXT\b/);
  t.notRegex(mxOnly.body.message, /\bMX\b/);
  t.deepEqual(mxOnly.body.dns_records_needed, needed);

  // The TXT alone, and an MX at someone else's host, still lack the MX.
  dns.setMx(d.domain, [{ exchange: 'mx.elsewhere.example.net', priority: 10 }]);
  dns.setTxt(d.domain, ['v=spf1 -all', d.txt_record]);
  const wrongMx = await call(key, 'POST', path);
  t.is(wrongMx.status, 422);
  t.regex(wrongMx.body.message, /\bMX\b/);
  t.notRegex(wrongMx.body.message, /\bTXT\b/);

  const listed = await call(key, 'GET', '/v1/custom-domains');
  t.is(listed.body.data[0].verified, false);

  publish(d);
  const ok = await call(key, 'POST', path);
  t.is(ok.status, 200);
  t.deepEqual(Object.keys(ok.body).sort(), ['data', 'message', 'success', 'verified']);
  t.like(ok.body, { success: true, verified: true });
  t.is(typeof ok.body.message, 'string');
  t.deepEqual(ok.body.data, { ...pick(d, DOMAIN_FIELDS), verified: true });
  t.deepEqual((await call(key, 'GET', '/v1/custom-domains')).body.data, [ok.body.data]);

  // Verified stays verified: no new lookup, so a DNS outage does not matter now.
  dns.setMode(d.domain, 'servfail');
  const again = await call(key, 'POST', path);
  dns.setMode(d.domain, null);
  t.is(again.status, 200);
  t.like(again.body, { success: true, verified: true });
  t.deepEqual(again.body.data, ok.body.data);
});

test('custom domains - a TXT value split into several character-strings still verifies', async (t) => {
  const key = await growthKey();
  const d = await add(key, 'chunked.example.com');
  dns.setMx(d.domain, [{ exchange: MX_HOST, priority: 10 }]);
  const value: string = d.txt_record;
  dns.setTxt(d.domain, [[value.slice(0, 20), value.slice(20)]]);
  const res = await call(key, 'POST', `/v1/custom-domains/${d.domain}/verify`);
  t.is(res.status, 200);
  t.true(res.body.verified);
});

test('custom domains - a DNS SERVFAIL or timeout answers 503 dns_lookup_failed, not 422, and the domain stays unverified', async (t) => {
  const key = await growthKey();
  const d = await add(key, 'flaky.example.com');
  publish(d);
  const path = `/v1/custom-domains/${d.domain}/verify`;

  dns.setMode(d.domain, 'servfail');
  const servfail = await call(key, 'POST', path);
  t.is(servfail.status, 503);
  t.deepEqual(Object.keys(servfail.body).sort(), ['error', 'message', 'success', 'verified']);
  t.like(servfail.body, { success: false, verified: false, error: 'dns_lookup_failed' });
  t.is(typeof servfail.body.message, 'string');

  dns.setMode(d.domain, 'timeout');
  const started = Date.now();
  const timeout = await call(key, 'POST', path);
  t.is(timeout.status, 503);
  t.like(timeout.body, { success: false, verified: false, error: 'dns_lookup_failed' });
  t.true(Date.now() - started < 20_000);

  t.is((await call(key, 'GET', '/v1/custom-domains')).body.data[0].verified, false);
  dns.setMode(d.domain, null);
  const ok = await call(key, 'POST', path);
  t.is(ok.status, 200);
  t.true(ok.body.verified);
});

test('custom domains - a verified domain takes inboxes of its account only, and they receive mail; unverified domains take none', async (t) => {
  const owner = await growthKey();
  const other = await growthKey();
  // The other account added the name too, before the owner verified it.
  const early = await add(other, 'inbox.example.com');
  await addVerified(owner, 'inbox.example.com');

  const created = await call(owner, 'POST', '/v1/inboxes', { address: 'Agent@Inbox.Example.com' });
  t.is(created.status, 201);
  t.is(created.body.data.address, 'agent@inbox.example.com');
  t.is(created.body.data.domain, 'inbox.example.com');
  const random = await call(owner, 'POST', '/v1/inboxes', { domain: 'inbox.example.com' });
  t.is(random.status, 201);
  t.regex(random.body.data.address, /@inbox\.example\.com$/);

  const foreign = await call(other, 'POST', '/v1/inboxes', { address: 'other@inbox.example.com' });
  t.is(foreign.status, 403);
  t.like(foreign.body, { success: false, error: 'domain_not_verified' });
  // DESIGN §3: the first to verify owns it; another account's add or verify answers 409 domain_taken.
  const takenAdd = await call(await growthKey(), 'POST', '/v1/custom-domains', { domain: 'inbox.example.com' });
  t.is(takenAdd.status, 409);
  t.like(takenAdd.body, { success: false, error: 'domain_taken' });
  const takenAgain = await call(other, 'POST', '/v1/custom-domains', { domain: 'inbox.example.com' });
  t.is(takenAgain.status, 409, 'an account that added the name before it was verified elsewhere gets 409 too');
  t.like(takenAgain.body, { success: false, error: 'domain_taken' });
  const takenVerify = await call(other, 'POST', '/v1/custom-domains/inbox.example.com/verify');
  t.is(takenVerify.status, 409);
  t.like(takenVerify.body, { success: false, error: 'domain_taken' });
  dns.setTxt('inbox.example.com', [early.txt_record, (await call(owner, 'GET', '/v1/custom-domains')).body.data[0].txt_record]);
  const takenVerifyPublished = await call(other, 'POST', '/v1/custom-domains/inbox.example.com/verify');
  t.is(takenVerifyPublished.status, 409);

  t.is(await smtpCode('agent@inbox.example.com'), 250);
  const msgs = await call(owner, 'GET', '/v1/inboxes/agent@inbox.example.com/messages');
  t.is(msgs.body.count, 1);
  t.is(msgs.body.data[0].otp, '731904');
  t.is(msgs.body.data[0].inbox, 'agent@inbox.example.com');
  // Not catch-all: an address nobody registered under the domain is refused.
  t.is(await smtpCode('nobody@inbox.example.com'), 550);

  await add(owner, 'pending.example.com');
  for (const body of [{ address: 'agent@pending.example.com' }, { domain: 'pending.example.com' }, { address: 'agent@never-added.example.com' }]) {
    const res = await call(owner, 'POST', '/v1/inboxes', body);
    t.is(res.status, 403, JSON.stringify(body));
    t.like(res.body, { success: false, error: 'domain_not_verified' });
  }
});

test('custom domains - the eleventh domain answers 400 limit_reached; re-adding one of the ten still answers 200', async (t) => {
  const key = await growthKey();
  for (let i = 0; i < 10; i++) await add(key, `d${i}.limit.example.com`);
  const eleventh = await call(key, 'POST', '/v1/custom-domains', { domain: 'd10.limit.example.com' });
  t.is(eleventh.status, 400);
  t.deepEqual(Object.keys(eleventh.body).sort(), ['error', 'message', 'success']);
  t.like(eleventh.body, { success: false, error: 'limit_reached' });
  const again = await call(key, 'POST', '/v1/custom-domains', { domain: 'd3.limit.example.com' });
  t.is(again.status, 200);
  t.is(again.body.data.domain, 'd3.limit.example.com');
  t.is((await call(key, 'GET', '/v1/custom-domains')).body.count, 10);
  // Deleting one makes room again.
  t.is((await call(key, 'DELETE', '/v1/custom-domains/d0.limit.example.com')).status, 200);
  t.is((await call(key, 'POST', '/v1/custom-domains', { domain: 'd10.limit.example.com' })).status, 201);
});

test('custom domains - malformed names and a missing field answer 400 invalid_domain', async (t) => {
  const key = await growthKey();
  const bad: [string, unknown][] = [
    ['empty', { domain: '' }],
    ['spaces', { domain: 'my domain.com' }],
    ['only spaces', { domain: '   ' }],
    ['leading hyphen', { domain: '-a.com' }],
    ['trailing hyphen', { domain: 'a-.com' }],
    ['64-character label', { domain: `${'a'.repeat(64)}.com` }],
    ['single label', { domain: 'localhost' }],
    ['IP address', { domain: '10.0.0.1' }],
    ['empty label', { domain: 'a..com' }],
    ['underscore', { domain: 'my_host.example.com' }],
    ['too long', { domain: `${Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.')}.com` }],
    ['not a string', { domain: 42 }],
    ['missing field', {}],
  ];
  for (const [what, body] of bad) {
    const res = await call(key, 'POST', '/v1/custom-domains', body);
    t.is(res.status, 400, what);
    t.deepEqual(Object.keys(res.body).sort(), ['error', 'message', 'success'], what);
    t.like(res.body, { success: false, error: 'invalid_domain' }, what);
  }
  t.is((await call(key, 'GET', '/v1/custom-domains')).body.count, 0);
  // The edges that are valid: a 63-character label, a trailing dot (dropped), upper case (lowered).
  t.is((await call(key, 'POST', '/v1/custom-domains', { domain: `${'b'.repeat(63)}.com` })).status, 201);
  const dotted = await call(key, 'POST', '/v1/custom-domains', { domain: 'Trailing.Example.COM.' });
  t.is(dotted.status, 201);
  t.is(dotted.body.data.domain, 'trailing.example.com');
});

test('custom domains - verify or delete of a domain not on the account answers 404 domain_not_found; another account\'s domain is invisible', async (t) => {
  const owner = await growthKey();
  const stranger = await growthKey();
  const d = await add(owner, 'private.example.com');
  publish(d);

  const strangerList = await call(stranger, 'GET', '/v1/custom-domains');
  t.deepEqual(strangerList.body, { success: true, count: 0, data: [] });
  for (const [method, path] of [
    ['POST', '/v1/custom-domains/private.example.com/verify'],
    ['DELETE', '/v1/custom-domains/private.example.com'],
    ['POST', '/v1/custom-domains/never-added.example.com/verify'],
    ['DELETE', '/v1/custom-domains/never-added.example.com'],
    ['POST', '/v1/custom-domains/not a domain/verify'],
  ] as const) {
    const res = await call(stranger, method, path);
    t.is(res.status, 404, `${method} ${path}`);
    t.deepEqual(Object.keys(res.body).sort(), ['error', 'message', 'success']);
    t.like(res.body, { success: false, error: 'domain_not_found' });
  }
  // The owner's entry is untouched by all of that.
  const mine = await call(owner, 'GET', '/v1/custom-domains');
  t.deepEqual(mine.body.data, [pick(d, DOMAIN_FIELDS)]);
});

test('custom domains - delete answers 200 with inboxes_removed; those inboxes are gone and SMTP refuses them', async (t) => {
  const key = await growthKey();
  await addVerified(key, 'gone.example.com');
  const addresses = ['beta@gone.example.com', 'alpha@gone.example.com'];
  for (const address of addresses) t.is((await call(key, 'POST', '/v1/inboxes', { address })).status, 201);
  const keep = (await call(key, 'POST', '/v1/inboxes', {})).body.data.address as string;
  t.is(await smtpCode('alpha@gone.example.com'), 250);

  const del = await call(key, 'DELETE', '/v1/custom-domains/gone.example.com');
  t.is(del.status, 200);
  t.deepEqual(Object.keys(del.body).sort(), ['inboxes_removed', 'message', 'success']);
  t.true(del.body.success);
  t.is(typeof del.body.message, 'string');
  t.deepEqual([...del.body.inboxes_removed].sort(), [...addresses].sort());

  for (const address of addresses) {
    const res = await call(key, 'GET', `/v1/inboxes/${address}`);
    t.is(res.status, 404);
    t.is(res.body.error, 'inbox_not_found');
    t.is(await smtpCode(address), 550);
  }
  t.is((await call(key, 'GET', `/v1/inboxes/${keep}`)).status, 200);
  t.is(await smtpCode(keep), 250);
  t.is((await call(key, 'GET', '/v1/custom-domains')).body.count, 0);
  // Removed means removed: no inboxes at it, a second delete is 404, and re-adding starts unverified.
  const again = await call(key, 'POST', '/v1/inboxes', { address: 'alpha@gone.example.com' });
  t.is(again.status, 403);
  t.is(again.body.error, 'domain_not_verified');
  t.is((await call(key, 'DELETE', '/v1/custom-domains/gone.example.com')).status, 404);
  const readded = await call(key, 'POST', '/v1/custom-domains', { domain: 'gone.example.com' });
  t.is(readded.status, 201);
  t.false(readded.body.data.verified);
});

test('custom domains - free, developer and startup plans answer 403 plan_required with upgrade_url on every path', async (t) => {
  for (const plan of ['free', 'developer', 'startup']) {
    const key = await growthKey(plan);
    for (const [method, path, body] of [
      ['GET', '/v1/custom-domains', undefined],
      ['POST', '/v1/custom-domains', { domain: 'plan.example.com' }],
      ['POST', '/v1/custom-domains/plan.example.com/verify', undefined],
      ['DELETE', '/v1/custom-domains/plan.example.com', undefined],
    ] as const) {
      const res = await call(key, method, path, body);
      t.is(res.status, 403, `${plan} ${method} ${path}`);
      t.deepEqual(Object.keys(res.body).sort(), ['error', 'message', 'success', 'upgrade_url']);
      t.like(res.body, { success: false, error: 'plan_required' });
      t.regex(res.body.upgrade_url, /^https?:\/\//);
    }
  }
  const enterprise = await growthKey('enterprise');
  t.is((await call(enterprise, 'GET', '/v1/custom-domains')).status, 200);
  t.is((await call(enterprise, 'POST', '/v1/custom-domains', { domain: 'plan.example.com' })).status, 201);
});

const structured = (r: unknown) => (r as { structuredContent: Json }).structuredContent;
const errorText = (r: unknown) => {
  const res = r as { isError?: boolean; content: { text: string }[] };
  return res.isError ? res.content[0]!.text : null;
};

for (const kind of ['streamable-http', 'sse'] as TransportKind[]) {
  test(`custom domains mcp ${kind} - the four tools return the REST data; REST and MCP see each other's changes at once`, async (t) => {
    const key = await growthKey();
    const client: Client = await connectMcp(kind, svc.baseUrl, key);
    const tool = (name: string, args: Json = {}) => client.callTool({ name, arguments: args });
    const restList = async () => (await call(key, 'GET', '/v1/custom-domains')).body.data as Json[];
    const viaMcp = `${kind}.mcp.example.com`;
    const viaRest = `rest.${kind}.mcp.example.com`;
    try {
      t.deepEqual(structured(await tool('list_custom_domains')), { count: 0, domains: [] });

      const added = structured(await tool('add_custom_domain', { domain: viaMcp }));
      t.true(added.created);
      t.regex(added.txt_record, TXT_VALUE);
      const restAgain = await call(key, 'POST', '/v1/custom-domains', { domain: viaMcp });
      t.is(restAgain.status, 200);
      const { created, ...addedData } = added;
      t.deepEqual(addedData, restAgain.body.data);
      t.deepEqual(await restList(), [pick(added, DOMAIN_FIELDS)]);
      const mcpAgain = structured(await tool('add_custom_domain', { domain: viaMcp }));
      t.false(mcpAgain.created);

      const restAdded = await add(key, viaRest);
      const listed = structured(await tool('list_custom_domains'));
      t.is(listed.count, 2);
      t.deepEqual(listed.domains, await restList());
      t.deepEqual(listed.domains[1], pick(restAdded, DOMAIN_FIELDS));

      const missing = errorText(await tool('verify_custom_domain', { domain: viaMcp }));
      t.truthy(missing);
      t.regex(missing!, /\bMX\b/);
      dns.setMode(viaMcp, 'servfail');
      const failed = errorText(await tool('verify_custom_domain', { domain: viaMcp }));
      dns.setMode(viaMcp, null);
      t.truthy(failed);
      publish(added);
      const verified = structured(await tool('verify_custom_domain', { domain: viaMcp }));
      t.deepEqual(verified, { ...pick(added, DOMAIN_FIELDS), verified: true });
      t.deepEqual((await restList())[0], verified);

      t.is((await call(key, 'POST', '/v1/inboxes', { address: `agent@${viaMcp}` })).status, 201);
      const removed = structured(await tool('delete_custom_domain', { domain: viaMcp }));
      t.deepEqual(removed, { domain: viaMcp, inboxes_removed: [`agent@${viaMcp}`] });
      t.deepEqual(await restList(), [pick(restAdded, DOMAIN_FIELDS)]);
      t.is((await call(key, 'GET', `/v1/inboxes/agent@${viaMcp}`)).status, 404);

      t.is((await call(key, 'DELETE', `/v1/custom-domains/${viaRest}`)).status, 200);
      t.deepEqual(structured(await tool('list_custom_domains')), { count: 0, domains: [] });

      t.regex(errorText(await tool('delete_custom_domain', { domain: viaMcp }))!, /not on your account/);
      t.regex(errorText(await tool('add_custom_domain', { domain: 'localhost' }))!, /not a valid domain/);
      // A missing argument is SEED.md's JSON-RPC -32602 naming it (over HTTP 400 on /mcp).
      const invalid = (await t.throwsAsync(tool('add_custom_domain', {}))) as Error & { code?: unknown; data?: unknown };
      const said = `${invalid.message} ${JSON.stringify(invalid.data ?? null)}`;
      t.regex(said, /-32602/);
      t.regex(said, /domain/);
    } finally {
      await client.close();
    }
  });
}

test('custom domains - twelve concurrent adds on a fresh account: exactly ten are taken', async (t) => {
  const key = await growthKey();
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => call(key, 'POST', '/v1/custom-domains', { domain: `race${i}.example.com` })));
  t.is(results.filter((r) => r.status === 201).length, 10);
  const refused = results.filter((r) => r.status === 400);
  t.is(refused.length, 2);
  for (const r of refused) t.is(r.body.error, 'limit_reached');
  t.is((await call(key, 'GET', '/v1/custom-domains')).body.count, 10);
});
