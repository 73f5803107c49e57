// Attack: use what is not metered (DESIGN §7 "Every caller is limited"). Thousands of sessions on a
// plan that cannot run tools, unmetered agent-tool methods, and /authorize are all bounded.
import test from 'ava';
import { metricValue, parkVictim, serviceRss } from '../helpers/isolation.js';
import { rawInitialize, rawMcp } from '../helpers/mcp.js';
import { freshWindow } from '../helpers/minute.js';
import { authorizationCode } from '../helpers/oauth.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;
const PER_IP = 40;

test.before(async () => {
  svc = await startService({ env: { MAILCUE_AUTHORIZE_PER_IP_PER_MINUTE: String(PER_IP) } });
});
test.after.always(async () => {
  await svc?.stop();
});

const initialize = (key: string) =>
  rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } }, {
    authorization: `Bearer ${key}`,
  });

/** Runs `n` calls, `width` at a time (a bounded load loop). */
async function flood<T>(n: number, width: number, call: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, call))));
  return out;
}

test.serial('limits - 5,000 sessions on Free, Developer and Startup: ten open, the rest refused with 429', async (t) => {
  const bystander = await parkVictim(svc);
  const rss = serviceRss(svc);
  for (const [plan, attempts] of [['free', 5000], ['developer', 300], ['startup', 300]] as const) {
    const key = (await svc.createAccount(plan)).api_key;
    const sessionsBefore = metricValue(await svc.metrics(), 'mailcue_open_sessions');
    const answers = await flood(attempts, 50, async () => {
      const res = await initialize(key);
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Json };
    });
    const opened = answers.filter((a) => a.status === 200);
    t.is(opened.length, 10, plan);
    const title = plan[0]!.toUpperCase() + plan.slice(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      t.is(a.status, 429);
      // Past the cap: -32004; once the minute's REST budget is spent too: -32003 with Retry-After.
      if (a.body.error.code === -32004) {
        t.like(a.body, { jsonrpc: '2.0', id: 1, error: { message: `Concurrent session limit reached (10 on ${title})` } });
      } else {
        t.is(a.body.error.code, -32003);
        t.regex(a.retryAfter ?? '', /^\d+$/);
      }
    }
    t.true(answers.some((a) => a.body.error?.code === -32004), 'the session cap refused some');
    t.is(metricValue(await svc.metrics(), 'mailcue_open_sessions') - sessionsBefore, 10, 'ten sessions are held, not more');
  }
  t.true(serviceRss(svc) - rss < 128 * 1024 * 1024, 'memory stayed bounded');
  await bystander.assertUnaffected(t);
});

test.serial('limits - initialize, tools/list, resources/list and ping count against the REST requests per minute', async (t) => {
  await freshWindow(30);
  const key = (await svc.createAccount('free')).api_key;
  const session = await rawInitialize(svc.baseUrl, key);
  const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': session };
  const methods = ['tools/list', 'resources/list', 'ping'];
  // initialize was call 1 of the Free plan's 60; 59 more pass.
  for (let i = 0; i < 59; i++) {
    const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: i, method: methods[i % 3] }, headers);
    t.is(res.status, 200, `call ${i + 2}`);
  }
  const over = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 99, method: 'ping' }, headers);
  t.is(over.status, 429);
  t.regex(over.headers.get('retry-after') ?? '', /^\d+$/);
  t.like(await over.json(), { id: 99, error: { code: -32003, message: 'Rate limit exceeded (60 requests per minute on Free)' } });
  // One budget: REST is spent too, and so is /authorize with this key.
  t.is((await svc.api(key, 'GET', '/v1/inboxes')).status, 429);
  await t.throwsAsync(authorizationCode(svc.baseUrl, key), { message: /^authorize: 429 .*rate_limited/ });
  // Ending the session is still possible.
  t.is((await fetch(`${svc.baseUrl}/mcp`, { method: 'DELETE', headers })).status, 200);
});

test.serial('limits - /authorize is limited per client IP', async (t) => {
  await freshWindow(20);
  const key = (await svc.createAccount('growth')).api_key;
  const url = (client: string) => `${svc.baseUrl}/authorize?client_id=${client}&redirect_uri=http://127.0.0.1:9/cb&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`;
  const answers = await flood(PER_IP + 10, 10, async () => (await fetch(url('mc_forged'), { redirect: 'manual' })).status);
  // Earlier tests of this file may have used some of this minute's budget.
  t.true(answers.filter((s) => s === 400).length <= PER_IP);
  t.true(answers.filter((s) => s === 429).length >= 10);
  const valid = await fetch(url(key), { redirect: 'manual' });
  t.is(valid.status, 429, 'the address is limited whatever key it names');
  t.regex(valid.headers.get('retry-after') ?? '', /^\d+$/);
  t.is(((await valid.json()) as Json).error, 'rate_limited');
});
