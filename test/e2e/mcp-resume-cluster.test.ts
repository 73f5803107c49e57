// End to end (issue 36) through a cluster of two fronts and two shards: the answer of a dropped
// stream is kept by the session's account's shard, not in the memory of the front that held the
// wait, so the SDK's reconnection is served by the other front; and a session with no request and
// no open stream for MAILCUE_SESSION_IDLE_MS ends on every front and frees its plan slot.
import test from 'ava';
import { sendMail } from '../helpers/mail.js';
import { rawMcp } from '../helpers/mcp.js';
import { connectSdk, StreamCutter, type Sdk } from '../helpers/mcp-clients.js';
import { startService, type Service } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
const IDLE_MS = 3_000;

test.before(async () => {
  svc = await startService({ clusterShards: 2, fronts: 2, env: { MAILCUE_SESSION_IDLE_MS: String(IDLE_MS) } });
});
test.after.always(async () => {
  await svc?.stop();
});

for (const sdk of ['v1', 'v2'] as Sdk[]) {
  test.serial(`mcp cluster ${sdk} - a stream dropped on one front is resumed through the other with the answer that came meanwhile`, async (t) => {
    const [front1, front2] = svc.frontUrls as [string, string];
    const { api_key: key } = await svc.createAccount('growth');
    const cutter = new StreamCutter(front2);
    const client = await connectSdk(sdk, front1, key, cutter);
    try {
      const address = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as Json).data.address as string;
      const call = client.callTool('watch_email', { inbox: address, timeout: 40 });
      await cutter.primed();
      await until(async () => (await svc.parkedWaiters()) >= 1, 'the wait parked');
      cutter.hold();
      cutter.cut();
      await until(() => cutter.reconnections.length > 0, 'the SDK to reconnect');
      await sendMail(svc.smtpPort, { to: address, subject: 'across fronts', text: 'Your code is 613370' });
      await until(async () => (await svc.parkedWaiters()) === 0, 'the wait to settle on the shard');
      cutter.release();
      const result = (await call).structuredContent as Json;
      t.like(result, { timed_out: false, message: { subject: 'across fronts', otp: '613370' } });
      t.is(result.cursor, result.message.id);
    } finally {
      await client.close();
    }
  });
}

async function initialize(front: string, key: string): Promise<string> {
  const res = await rawMcp(front, {
    jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  }, { authorization: `Bearer ${key}` });
  t_ok(res.status === 200, `initialize answered ${res.status}`);
  return res.headers.get('mcp-session-id')!;
}

function t_ok(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

test('mcp cluster - a session without requests or an open stream ends after the idle limit on every front; an open stream keeps it', async (t) => {
  const [front1, front2] = svc.frontUrls as [string, string];
  const { api_key: key } = await svc.createAccount('growth');
  const sessionsOpen = async () => ((await (await svc.api(key, 'GET', '/v1/account')).json()) as Json).data.sessions_open as number;
  const list = (front: string, session: string) => rawMcp(front, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${key}`, 'mcp-session-id': session });

  const idle = await initialize(front1, key);
  t.is((await list(front2, idle)).status, 200, 'served through the other front');
  // A second session holds its standalone stream open on front 2 for longer than the idle limit.
  const streamed = await initialize(front1, key);
  const abort = new AbortController();
  const stream = await fetch(`${front2}/mcp`, { headers: { authorization: `Bearer ${key}`, 'mcp-session-id': streamed, accept: 'text/event-stream' }, signal: abort.signal });
  t.is(stream.status, 200);
  t.is(await sessionsOpen(), 2);

  await until(async () => (await sessionsOpen()) === 1, 'the idle session to end', IDLE_MS * 5);
  // Every front is told at once; the shard's notice reaches them within a second (DESIGN §7).
  for (const front of [front1, front2]) await until(async () => (await list(front, idle)).status === 404, `the idle session to be gone on ${front}`, 2_000);
  t.is((await list(front1, streamed)).status, 200, 'the session with an open stream lives on');

  abort.abort();
  await until(async () => (await sessionsOpen()) === 0, 'the session to end once its stream closed', IDLE_MS * 5);
  for (const front of [front1, front2]) await until(async () => (await list(front, streamed)).status === 404, `the session to be gone on ${front}`, 2_000);
});
