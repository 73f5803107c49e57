// Attack: bodies a handler cannot process (DESIGN §7 "Bad bodies"). JSON nested deeper than 64
// levels, or a value of the wrong kind, answers 400 in the documented shape: never 500 or -32603.
import test from 'ava';
import { parkVictim, serviceRss } from '../helpers/isolation.js';
import { rawInitialize, rawMcp } from '../helpers/mcp.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;
let key: string;

test.before(async () => {
  svc = await startService();
  key = (await svc.createAccount('growth')).api_key;
});
test.after.always(async () => {
  await svc?.stop();
});

const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${svc.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body });

test.serial('bodies - a 150k-deep object as domain on POST /v1/custom-domains is a 400 in the REST shape', async (t) => {
  const bystander = await parkVictim(svc);
  const rss = serviceRss(svc);
  // (The domains route is /v1/custom-domains, SEED.md's path.)
  const res = await post('/v1/custom-domains', `{"domain":${deepObject(150_000)}}`);
  t.is(res.status, 400);
  t.like(await res.json(), { success: false, error: 'invalid_json', message: 'The request body nests deeper than 64 levels' });
  // Deep arrays, and on other routes, alike.
  const inbox = await post('/v1/inboxes', `{"address":${deepArray(100_000)}}`);
  t.is(inbox.status, 400);
  t.like(await inbox.json(), { success: false, error: 'invalid_json', message: 'The request body nests deeper than 64 levels' });
  // Shallow enough to parse, but not a domain name: the handler refuses it, without echoing it.
  const shallow = await post('/v1/custom-domains', `{"domain":${deepObject(60)}}`);
  t.is(shallow.status, 400);
  t.like(await shallow.json(), { success: false, error: 'invalid_domain', message: 'domain must be a string, got an object' });
  t.true(serviceRss(svc) - rss < 64 * 1024 * 1024);
  await bystander.assertUnaffected(t);
});

test.serial('bodies - a 200k-deep progressToken is HTTP 400 with a JSON-RPC error, not -32603', async (t) => {
  const session = await rawInitialize(svc.baseUrl, key);
  const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': session };
  const call = (progressToken: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_and_wait_for_otp","arguments":{"timeout":10},"_meta":{"progressToken":${progressToken}}}}`;
  const res = await rawMcp(svc.baseUrl, call(deepObject(200_000)), headers);
  t.is(res.status, 400);
  t.like(await res.json(), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request', data: 'The JSON nests deeper than 64 levels' } });
  // A progressToken that is neither a string nor a number is invalid params, and runs nothing.
  const shallow = await rawMcp(svc.baseUrl, call(deepObject(40)), headers);
  t.is(shallow.status, 400);
  t.like(await shallow.json(), { id: 1, error: { code: -32602 } });
  // The legacy transport and the token endpoint refuse deep bodies too.
  const sse = await fetch(`${svc.baseUrl}/sse`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
  const reader = sse.body!.getReader();
  const endpoint = /data: (\S+)/.exec(Buffer.from((await reader.read()).value!).toString())![1]!;
  const legacy = await post(endpoint, call(deepArray(200_000)));
  t.is(legacy.status, 400);
  t.like(await legacy.json(), { error: { code: -32600 } });
  await reader.cancel();
  const token = await fetch(`${svc.baseUrl}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"grant_type":${deepArray(10_000)}}` });
  t.is(token.status, 400);
  t.is(((await token.json()) as Json).error, 'invalid_request');
  for (const p of svc.processes) t.is(p.exitCode, null);
  // The session still works.
  t.is((await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 2, method: 'ping' }, headers)).status, 200);
});
