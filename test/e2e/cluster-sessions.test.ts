// End to end: an agent-tool session belongs to the service, not to the front tier that opened it.
// Fronts are stateless apart from caches and open connections (DESIGN §2), and a cluster runs them
// as a Deployment behind a plain load balancer, so the next request of a Streamable HTTP session may
// reach any of them: it must be served there, ended there for every front, and stay another
// account's 404. Two `mailcue shard` processes behind two `mailcue front` processes, the official
// MCP SDK client on both.
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sendMail } from '../helpers/mail.js';
import { connectMcp, rawInitialize, rawMcp } from '../helpers/mcp.js';
import { startService, type Service } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService({ clusterShards: 2, fronts: 2 });
});
test.after.always(async () => {
  await svc?.stop();
});

/** The SDK client, joining a session opened elsewhere: it sends no initialize, only the session id. */
async function rejoin(baseUrl: string, token: string, sessionId: string): Promise<Client> {
  const client = new Client({ name: 'mailcue-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { sessionId, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const sessionIdOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId!;
const structured = (result: unknown) => (result as { structuredContent: Json }).structuredContent;

test('sessions - a session opened through one front serves tool calls, long-polls included, through the other', async (t) => {
  const [front1, front2] = svc.frontUrls as [string, string];
  const { api_key: key } = await svc.createAccount('growth');
  const opened = await connectMcp('streamable-http', front1, key);
  const session = sessionIdOf(opened);
  const elsewhere = await rejoin(front2, key, session);
  try {
    const inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address as string;
    for (const client of [elsewhere, opened]) {
      const listed = structured(await client.callTool({ name: 'list_inboxes', arguments: {} }));
      t.true(JSON.stringify(listed).includes(inbox), 'both fronts serve the same session');
    }

    const watching = elsewhere.callTool({ name: 'watch_email', arguments: { inbox, timeout: 20 } });
    await until(async () => (await svc.parkedWaiters(1)) >= 1, 'the long-poll parked through front 2');
    await sendMail(svc.smtpPort, { to: inbox, subject: 'across fronts', text: 'Your code is 480213' });
    const woken = structured(await watching);
    t.is(woken.timed_out, false);
    t.is(woken.message.subject, 'across fronts');
    t.is(woken.message.otp, '480213');
  } finally {
    await opened.close();
    await elsewhere.close();
  }
});

test('sessions - DELETE through one front ends the session on both', async (t) => {
  const [front1, front2] = svc.frontUrls as [string, string];
  const { api_key: key } = await svc.createAccount('growth');
  const opened = await connectMcp('streamable-http', front1, key);
  const session = sessionIdOf(opened);
  const auth = { authorization: `Bearer ${key}`, 'mcp-session-id': session };
  const ping = (url: string) => rawMcp(url, { jsonrpc: '2.0', id: 3, method: 'ping' }, auth);
  t.is((await ping(front1)).status, 200);
  t.is((await ping(front2)).status, 200);

  const ended = await fetch(`${front2}/mcp`, { method: 'DELETE', headers: auth });
  t.is(ended.status, 200);
  for (const url of [front2, front1]) {
    const res = await ping(url);
    t.is(res.status, 404, url);
    t.like(await res.json(), { jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'Session not found' } });
  }
  await opened.close().catch(() => undefined);
});

test("sessions - another account's session id is 404 on the front that did not open it, and on the one that did", async (t) => {
  const [front1, front2] = svc.frontUrls as [string, string];
  const owner = await svc.createAccount('growth');
  const other = await svc.createAccount('growth');
  const opened = await connectMcp('streamable-http', front1, owner.api_key);
  const session = sessionIdOf(opened);
  const listInboxes = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_inboxes', arguments: {} } };
  for (const url of [front2, front1]) {
    const res = await rawMcp(url, listInboxes, { authorization: `Bearer ${other.api_key}`, 'mcp-session-id': session });
    t.is(res.status, 404, url);
    t.like(await res.json(), { jsonrpc: '2.0', id: 9, error: { code: -32000, message: 'Session not found' } });
  }
  // An unknown id, with a valid key, is 404 on both as well.
  for (const url of [front2, front1]) {
    const res = await rawMcp(url, listInboxes, { authorization: `Bearer ${owner.api_key}`, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' });
    t.is(res.status, 404, url);
  }
  // The owner's session was not disturbed: it still answers on the other front.
  const own = await rawMcp(front2, listInboxes, { authorization: `Bearer ${owner.api_key}`, 'mcp-session-id': session });
  t.is(own.status, 200);
  await opened.close();
});

test('sessions - an open stream keeps its session counted past the idle limit; a session left alone ends on every front', async (t) => {
  const idle = await startService({ clusterShards: 1, fronts: 2, env: { MAILCUE_SESSION_IDLE_MS: '1500' } });
  try {
    const [front1, front2] = idle.frontUrls as [string, string];
    const { api_key: key } = await idle.createAccount('growth');
    const open = async () => (await idle.api(key, 'GET', '/v1/account').then((r) => r.json()) as Json).data.sessions_open as number;
    const streaming = await connectMcp('streamable-http', front1, key);
    const headers = { authorization: `Bearer ${key}`, 'mcp-session-id': sessionIdOf(streaming), accept: 'text/event-stream' };
    // The session's server stream (GET /mcp), held open through the other front.
    const stream = await fetch(`${front2}/mcp`, { headers });
    t.is(stream.status, 200);
    const reader = stream.body!.getReader();
    const first = Buffer.from((await reader.read()).value!).toString();
    t.is(first, ': open\n\n', 'the head is sent at once, not with the first keep-alive');
    // Opened without the SDK, which would hold a stream open: nothing keeps this one busy.
    const aloneId = await rawInitialize(front1, key);
    t.is(await open(), 2);
    // Three idle limits later the streaming session still counts, and the idle one does not.
    await until(async () => (await open()) === 1, 'the idle session ended', 15_000);
    await new Promise((r) => setTimeout(r, 4_500));
    t.is(await open(), 1, 'the session with an open stream is not idle');
    for (const url of [front1, front2]) {
      const res = await rawMcp(url, { jsonrpc: '2.0', id: 5, method: 'ping' }, { authorization: `Bearer ${key}`, 'mcp-session-id': aloneId });
      t.is(res.status, 404, url);
    }
    await reader.cancel();
    await streaming.close();
  } finally {
    await idle.stop();
  }
});
