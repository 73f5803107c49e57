// Attack: use a session id as a credential (DESIGN §7 "A session id is never a credential"). A
// POST on /mcp or /messages with only a session id runs nothing; another account's session id
// answers 404 and puts nothing on the owner's stream.
import test from 'ava';
import { metricValue, parkVictim, serviceRss } from '../helpers/isolation.js';
import { rawInitialize, rawMcp } from '../helpers/mcp.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await svc?.stop();
});

const listInboxes = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_inboxes', arguments: {} } };
const inboxLists = async () => metricValue(await svc.metrics(), 'mailcue_shard_commands_dispatched', 'command="inbox.list"');

/** Opens a legacy SSE stream and reads up to its endpoint event; `rest()` collects what follows. */
async function openSse(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers } });
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += Buffer.from((await reader.read()).value!).toString();
  const endpoint = /^event: endpoint\ndata: (\S+)\n\n/.exec(text)![1]!;
  return {
    endpoint,
    /** Everything the stream carries until it ends (it ends when the session is deleted or capped). */
    async next(): Promise<string> {
      const { value } = await reader.read();
      return value ? Buffer.from(value).toString() : '';
    },
    cancel: () => reader.cancel(),
  };
}

test.serial('sessions - POST /mcp with only Mcp-Session-Id runs no tool: 401 with the documented challenge', async (t) => {
  const victim = await svc.createAccount('growth');
  const session = await rawInitialize(svc.baseUrl, victim.api_key);
  const bystander = await parkVictim(svc);
  const rss = serviceRss(svc);
  const before = await inboxLists();
  const answers = await Promise.all(Array.from({ length: 20 }, () => rawMcp(svc.baseUrl, listInboxes, { 'mcp-session-id': session })));
  for (const res of answers) {
    t.is(res.status, 401);
    t.is(res.headers.get('www-authenticate'), `Bearer resource_metadata="${svc.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    t.like(await res.json(), { jsonrpc: '2.0', id: 7, error: { code: -32002 } });
  }
  // A garbage bearer alongside the session id is no better.
  t.is((await rawMcp(svc.baseUrl, listInboxes, { 'mcp-session-id': session, authorization: 'Bearer nope' })).status, 401);
  t.is(await inboxLists(), before, 'no tool ran');
  // The owner's session still works with the owner's key.
  const own = await rawMcp(svc.baseUrl, listInboxes, { 'mcp-session-id': session, authorization: `Bearer ${victim.api_key}` });
  t.is(own.status, 200);
  t.true(serviceRss(svc) - rss < 64 * 1024 * 1024);
  await bystander.assertUnaffected(t);
});

test.serial("sessions - another account's session id answers 404 on /mcp and /messages, and nothing reaches the owner's stream", async (t) => {
  const owner = await svc.createAccount('growth');
  const intruder = await svc.createAccount('growth');
  const mcpSession = await rawInitialize(svc.baseUrl, owner.api_key);
  const other = await rawMcp(svc.baseUrl, listInboxes, { 'mcp-session-id': mcpSession, authorization: `Bearer ${intruder.api_key}` });
  t.is(other.status, 404);
  t.like(await other.json(), { error: { code: -32000, message: 'Session not found' } });

  const stream = await openSse(`${svc.baseUrl}/sse`, { authorization: `Bearer ${owner.api_key}` });
  t.regex(stream.endpoint, /^\/messages\?sessionId=[0-9a-f-]+$/);
  const post = (headers: Record<string, string>) =>
    fetch(`${svc.baseUrl}${stream.endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(listInboxes) });
  const before = await inboxLists();
  const bare = await post({});
  t.is(bare.status, 401);
  t.is(bare.headers.get('www-authenticate'), `Bearer resource_metadata="${svc.baseUrl}/.well-known/oauth-protected-resource/sse"`);
  t.is((await post({ authorization: `Bearer ${intruder.api_key}` })).status, 404);
  t.is(await inboxLists(), before, 'no tool ran for either');
  // The owner's own call is the first thing on the stream: nothing of the refused ones got there.
  t.is((await post({ authorization: `Bearer ${owner.api_key}` })).status, 202);
  const first = await stream.next();
  t.regex(first, /^event: message\ndata: /);
  t.is(JSON.parse(first.split('data: ')[1]!).id, 7);
  t.truthy(JSON.parse(first.split('data: ')[1]!).result);
  await stream.cancel();
});

test.serial('sessions - a legacy client that authenticates in the query gets its credential back in the endpoint', async (t) => {
  const owner = await svc.createAccount('growth');
  const stream = await openSse(`${svc.baseUrl}/sse?access_token=${owner.api_key}`, {});
  t.is(stream.endpoint, `${stream.endpoint.split('&')[0]}&access_token=${owner.api_key}`);
  const res = await fetch(`${svc.baseUrl}${stream.endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(listInboxes) });
  t.is(res.status, 202);
  const answer = JSON.parse((await stream.next()).split('data: ')[1]!) as Json;
  t.is(answer.id, 7);
  await stream.cancel();
});
