// End to end: plan gating and metering across the cluster (two front tiers, two shard processes).
import test from 'ava';
import { connectMcp, rawInitialize, rawMcp } from '../helpers/mcp.js';
import { startService, type Service } from '../helpers/service.js';
import { sendMail } from '../helpers/mail.js';
import { metricValue } from '../helpers/isolation.js';
import { awayFromMinuteEnd } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService({ clusterShards: 2, fronts: 2, env: { MAILCUE_MONTHLY_CREDITS: 'growth=100000,enterprise=30' } });
});
test.after.always(async () => {
  await svc?.stop();
});

const TOOL_CALLS: [string, Json][] = [
  ['get_latest_email', { inbox: 'x@mailcue.test' }], ['extract_otp', { inbox: 'x@mailcue.test' }], ['create_and_wait_for_otp', { timeout: 10 }],
  ['watch_email', { inbox: 'x@mailcue.test' }], ['get_messages', { inbox: 'x@mailcue.test' }], ['delete_email', { inbox: 'x@mailcue.test', message_id: 'msg_0' }],
  ['list_inboxes', {}], ['list_custom_domains', {}], ['add_custom_domain', { domain: 'a.example.com' }],
  ['verify_custom_domain', { domain: 'a.example.com' }], ['delete_custom_domain', { domain: 'a.example.com' }],
];

for (const plan of ['free', 'developer', 'startup']) {
  test(`plans - ${plan}: discovery works, every tool call is -32001 (403), custom domains are plan_required`, async (t) => {
    const key = (await svc.createAccount(plan)).api_key;
    const session = await rawInitialize(svc.baseUrl, key);
    const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': session };
    const list = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
    t.is(list.status, 200);
    t.is(((await list.json()) as Json).result.tools.length, 13);
    t.is((await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 2, method: 'ping' }, headers)).status, 200);
    for (const [name, args] of TOOL_CALLS) {
      const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } }, headers);
      t.is(res.status, 403, name);
      t.like(await res.json(), { error: { code: -32001, data: 'Plan upgrade required' } }, name);
    }
    for (const [method, path] of [['GET', '/v1/custom-domains'], ['POST', '/v1/custom-domains'], ['POST', '/v1/custom-domains/a.example.com/verify'], ['DELETE', '/v1/custom-domains/a.example.com']]) {
      const res = await svc.api(key, method!, path!, method === 'POST' && path === '/v1/custom-domains' ? { domain: 'a.example.com' } : undefined);
      t.is(res.status, 403, path);
      const body = (await res.json()) as Json;
      t.is(body.error, 'plan_required');
      t.is(typeof body.upgrade_url, 'string');
    }
  });
}

test('plans - growth and enterprise run tools and custom domains', async (t) => {
  for (const plan of ['growth', 'enterprise']) {
    const key = (await svc.createAccount(plan)).api_key;
    const client = await connectMcp('streamable-http', svc.baseUrl, key);
    const r = await client.callTool({ name: 'list_inboxes', arguments: {} });
    t.falsy(r.isError);
    await client.close();
    t.is((await svc.api(key, 'GET', '/v1/custom-domains')).status, 200);
  }
});

// The exact window edges (the 61st call, the next minute) are tested with an injected clock in
// test/component/account-limits.test.ts. A burst here crosses at most one UTC-minute edge, so its
// refusal comes within 121 calls, whenever in the minute it starts.
async function untilRefused(call: (i: number) => Promise<Response>): Promise<{ successes: number; last: Response; refused: Response | undefined }> {
  let last!: Response;
  for (let i = 0; i < 121; i++) {
    const res = await call(i);
    if (res.status !== 200) return { successes: i, last, refused: res };
    last = res;
    await res.arrayBuffer();
  }
  return { successes: 121, last, refused: undefined };
}

test.serial('quotas - past 60 tool calls in a minute on Growth is -32003 with Retry-After, counted across both front tiers', async (t) => {
  t.is(svc.frontUrls.length, 2);
  let burst: Awaited<ReturnType<typeof untilRefused>> | undefined;
  // Counted per front, 120 alternating calls would pass in one window; counted once on the account's
  // shard, the refusal comes after 60, or after up to 120 across a window edge. A run that ends on
  // exactly 120 cannot tell the two apart, so it is repeated with a fresh account.
  for (let run = 0; run < 3 && (!burst || burst.successes >= 120); run++) {
    const key = (await svc.createAccount('growth')).api_key;
    const sessions = await Promise.all(svc.frontUrls.map((url) => rawInitialize(url, key)));
    burst = await untilRefused((i) =>
      rawMcp(svc.frontUrls[i % 2]!, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'list_inboxes', arguments: {} } }, {
        authorization: `Bearer ${key}`, 'mcp-session-id': sessions[i % 2]!,
      }));
  }
  const { successes, refused: maybeRefused } = burst!;
  t.true(successes >= 60 && successes < 120, `refused after ${successes} calls`);
  const refused = maybeRefused!;
  t.is(refused.status, 429);
  const retry = Number(refused.headers.get('retry-after'));
  t.true(Number.isInteger(retry) && retry >= 1 && retry <= 60);
  const body = (await refused.json()) as Json;
  t.is(body.error.code, -32003);
  t.regex(body.error.message, /60 ops per minute on Growth/);
  // DESIGN §4: RateLimit-* on the agent-tool limit too; the refusal says nothing is left.
  t.is(refused.headers.get('ratelimit-limit'), '60');
  t.is(refused.headers.get('ratelimit-remaining'), '0');
  t.is(refused.headers.get('ratelimit-reset'), String(retry));
});

test.serial('quotas - every tool call answers the ops limit it counted against, RateLimit-Remaining counting down', async (t) => {
  const key = (await svc.createAccount('growth')).api_key;
  const session = await rawInitialize(svc.baseUrl, key);
  const remaining: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'list_inboxes', arguments: {} } }, { authorization: `Bearer ${key}`, 'mcp-session-id': session });
    t.is(res.status, 200);
    t.is(res.headers.get('ratelimit-limit'), '60');
    t.regex(res.headers.get('ratelimit-reset') ?? '', /^\d+$/);
    remaining.push(Number(res.headers.get('ratelimit-remaining')));
    await res.arrayBuffer();
  }
  // Within one window each call leaves one fewer; a window edge between two calls starts again at 59.
  for (let i = 1; i < remaining.length; i++) t.true(remaining[i] === remaining[i - 1]! - 1 || remaining[i] === 59, JSON.stringify(remaining));
});

test.serial('quotas - the 6th concurrent session on Growth is refused with -32004 (429); ending one frees a slot', async (t) => {
  const key = (await svc.createAccount('growth')).api_key;
  const sessions: string[] = [];
  for (let i = 0; i < 5; i++) sessions.push(await rawInitialize(svc.frontUrls[i % 2]!, key));
  const sixth = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, { authorization: `Bearer ${key}` });
  t.is(sixth.status, 429);
  t.like(await sixth.json(), { error: { code: -32004 } });
  // DESIGN §4: Retry-After, whole seconds, on every 429: here when the least recent session would idle out.
  t.regex(sixth.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  const sse = await fetch(`${svc.baseUrl}/sse`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
  t.is(sse.status, 429);
  t.regex(sse.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  t.is(sse.headers.get('ratelimit-limit'), null, 'the session cap is no per-minute rate limit');
  const usage = (await (await svc.api(key, 'GET', '/v1/account')).json()) as Json;
  t.is(usage.data.sessions_open, 5);
  const del = await fetch(`${svc.baseUrl}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${key}`, 'mcp-session-id': sessions[0]! } });
  t.is(del.status, 200);
  t.truthy(await rawInitialize(svc.baseUrl, key));
});

test.serial('quotas - credits drop by each tool\'s multiplier and calls stop at zero', async (t) => {
  const key = (await svc.createAccount('enterprise')).api_key; // 30 credits in this service
  const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address;
  await sendMail(svc.smtpPort, { to: inbox, subject: 'c', text: 'code 4455' });
  const client = await connectMcp('streamable-http', svc.baseUrl, key);
  const left = async () => ((await (await svc.api(key, 'GET', '/v1/account')).json()) as Json).data.credits_left;
  t.is(await left(), 30);
  await client.callTool({ name: 'get_latest_email', arguments: { inbox } });
  t.is(await left(), 28);
  await client.callTool({ name: 'extract_otp', arguments: { inbox } });
  t.is(await left(), 25);
  await client.callTool({ name: 'list_inboxes', arguments: {} });
  t.is(await left(), 24);
  await client.callTool({ name: 'watch_email', arguments: { inbox, since: 'msg_0000000000000000000' } }).catch(() => null);
  t.is(await left(), 14);
  await client.callTool({ name: 'watch_email', arguments: { inbox, timeout: 10 } }, undefined, {}).catch(() => null);
  t.is(await left(), 4);
  await client.callTool({ name: 'create_and_wait_for_otp', arguments: { timeout: 10 } }).then(() => t.fail('should be refused'), () => undefined);
  t.is(await left(), 4, 'a refused call deducts nothing');
  const session = await rawInitialize(svc.baseUrl, key);
  const refused = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'create_and_wait_for_otp', arguments: { timeout: 10 } } }, { authorization: `Bearer ${key}`, 'mcp-session-id': session });
  t.is(refused.status, 402);
  t.like(await refused.json(), { error: { code: -32005 } });
  await client.callTool({ name: 'get_latest_email', arguments: { inbox } });
  await client.callTool({ name: 'get_latest_email', arguments: { inbox } });
  t.is(await left(), 0);
  await client.close();
});

test.serial('rate limit - past 60 REST requests in a minute on Free is 429 rate_limited with Retry-After and RateLimit headers', async (t) => {
  const key = (await svc.createAccount('free')).api_key;
  const { successes, last, refused: maybeRefused } = await untilRefused(() => svc.api(key, 'GET', '/v1/inboxes'));
  t.true(successes >= 60 && successes <= 120, `refused after ${successes} requests`);
  // The request just before the refusal used the window's last slot.
  t.is(last.headers.get('ratelimit-limit'), '60');
  t.is(last.headers.get('ratelimit-remaining'), '0');
  const refused = maybeRefused!;
  t.is(refused.status, 429);
  t.true(Number(refused.headers.get('retry-after')) >= 1);
  t.is(refused.headers.get('ratelimit-remaining'), '0');
  t.like(await refused.json(), { success: false, error: 'rate_limited' });
});

test.serial('rate limit - an Enterprise key hammered on both fronts at once spends leases on each, and the two admit no more than 1,200 in the window', async (t) => {
  t.is(svc.frontUrls.length, 2);
  const key = (await svc.createAccount('enterprise')).api_key;
  await awayFromMinuteEnd();
  const leased = async () => (await Promise.all([0, 1].map(async (f) => metricValue(await svc.metrics(f), 'mailcue_leased_admissions')))) as [number, number];
  const [before0, before1] = await leased();
  let admitted = 0;
  const refusedOn = new Set<number>();
  // Eight callers per front, each until its own first refusal.
  await Promise.all(Array.from({ length: 16 }, async (_, i) => {
    const front = svc.frontUrls[i % 2]!;
    for (let n = 0; n < 2000; n++) {
      const res = await fetch(`${front}/v1/inboxes`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      if (res.status === 429) {
        refusedOn.add(i % 2);
        return;
      }
      t.is(res.status, 200);
      admitted++;
    }
  }));
  t.deepEqual([...refusedOn].sort(), [0, 1]);
  t.log(`${admitted} admitted`);
  t.true(admitted <= 1200, `${admitted} admitted`);
  t.true(admitted >= 1100, `${admitted} admitted: what one front held unspent was refused on the other`);
  const [after0, after1] = await leased();
  t.true(after0 > before0 && after1 > before1, 'both fronts spent leases');
});

test('admin - a plan change takes effect on the next request; a rotated key stops working at once', async (t) => {
  const acct = await svc.createAccount('free');
  const client = await connectMcp('sse', svc.baseUrl, acct.api_key);
  await t.throwsAsync(client.callTool({ name: 'list_inboxes', arguments: {} }), { message: /-32001/ });
  const patched = await svc.admin('PATCH', `/admin/v1/accounts/${acct.id}`, { plan: 'growth' });
  t.is(patched.status, 200);
  t.is(((await patched.json()) as Json).data.plan, 'growth');
  const ok = await client.callTool({ name: 'list_inboxes', arguments: {} });
  t.falsy(ok.isError);
  await client.close();

  const rotated = await svc.admin('POST', `/admin/v1/accounts/${acct.id}/rotate-key`);
  const fresh = ((await rotated.json()) as Json).data.api_key;
  t.not(fresh, acct.api_key);
  t.is((await svc.api(acct.api_key, 'GET', '/v1/inboxes')).status, 401);
  t.is((await svc.api(fresh, 'GET', '/v1/inboxes')).status, 200);
  const cli = await svc.cli(['admin', 'set-plan', acct.id, 'startup']);
  t.is(cli.code, 0, cli.stderr);
  t.is(JSON.parse(cli.stdout).plan, 'startup');
});
