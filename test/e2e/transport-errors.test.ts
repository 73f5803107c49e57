// End to end: the answers the transports give before any tool runs (foreign Origin, missing or
// unknown session, wrong method, wrong media type, oversized or broken bodies), pinned on the wire
// so that mapping them through the error registry changes nothing a client sees.
import test from 'ava';
import { rawInitialize, rawMcp } from '../helpers/mcp.js';
import { startService, type Service } from '../helpers/service.js';

let svc: Service;
let key: string;
let auth: Record<string, string>;
let session: string;

test.before(async () => {
  // HTTP on port 0 too: the front reports the port it bound and names its URLs after it.
  svc = await startService({ env: { MAILCUE_HTTP_PORT: '0' } });
  key = (await svc.createAccount('growth')).api_key;
  auth = { authorization: `Bearer ${key}` };
  session = await rawInitialize(svc.baseUrl, key, '2025-06-18');
});
test.after.always(async () => {
  await svc?.stop();
});

async function answer(res: Response): Promise<{ status: number; body: unknown }> {
  return { status: res.status, body: await res.json() };
}

const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };

/** SEED.md's JSON-RPC error body: `data` always present, the message itself when nothing more is known. */
function rpcError(status: number, id: number | null, code: number, message: string, data = message) {
  return { status, body: { jsonrpc: '2.0', id, error: { code, message, data } } };
}

test('bound ports - a front started on port 0 reports the port it bound and names its URLs after it', async (t) => {
  t.not(svc.httpPort, 0);
  t.not(svc.smtpPort, 0);
  const metadata = (await (await fetch(`${svc.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string };
  t.is(metadata.resource, `${svc.baseUrl}/mcp`);
});

test('transport errors - a foreign Origin is 403 on both transports', async (t) => {
  const evil = { ...auth, origin: 'https://evil.example' };
  const expected = rpcError(403, null, -32000, 'Forbidden: Origin not allowed');
  t.deepEqual(await answer(await rawMcp(svc.baseUrl, ping, evil)), expected);
  t.deepEqual(await answer(await fetch(`${svc.baseUrl}/sse`, { headers: evil })), expected);
});

test('transport errors - a foreign Origin is 403 on the OAuth paths too; the service\'s own origin and none are served', async (t) => {
  const form = (origin?: string) => ({
    method: 'POST', body: 'grant_type=authorization_code&code=nope&client_id=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) },
  });
  for (const path of ['/token', '/register', '/authorize']) {
    const refused = await fetch(`${svc.baseUrl}${path}`, form('https://evil.example'));
    t.is(refused.status, 403, path);
    t.like(await refused.json(), { error: 'forbidden_origin' }, path);
    for (const origin of [undefined, new URL(svc.baseUrl).origin]) t.not((await fetch(`${svc.baseUrl}${path}`, form(origin))).status, 403, `${path} from ${origin ?? 'no origin'}`);
  }
  t.is((await fetch(`${svc.baseUrl}/authorize?response_type=code`, { headers: { origin: 'https://evil.example' } })).status, 403, 'GET /authorize');
});

test('transport errors - a missing session is 400, an unknown one 404', async (t) => {
  t.deepEqual(await answer(await rawMcp(svc.baseUrl, ping, auth)), rpcError(400, 7, -32000, 'Bad Request: Mcp-Session-Id header is required'));
  t.deepEqual(await answer(await rawMcp(svc.baseUrl, ping, { ...auth, 'mcp-session-id': 'nope' })), rpcError(404, 7, -32000, 'Session not found'));
  const post = (query: string) => fetch(`${svc.baseUrl}/messages${query}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(ping) });
  t.deepEqual(await answer(await post('')), rpcError(400, null, -32000, 'Bad Request: sessionId query parameter is required'));
  t.deepEqual(await answer(await post('?sessionId=nope')), rpcError(404, null, -32000, 'Session not found'));
});

test('transport errors - a method a transport does not serve is 405 with Allow', async (t) => {
  const put = await fetch(`${svc.baseUrl}/mcp`, { method: 'PUT', headers: auth });
  t.is(put.headers.get('allow'), 'GET, POST, DELETE');
  t.deepEqual(await answer(put), rpcError(405, null, -32000, 'Method not allowed.', 'Use GET, POST or DELETE on /mcp'));
  const postSse = await fetch(`${svc.baseUrl}/sse`, { method: 'POST', headers: auth, body: '{}' });
  t.is(postSse.headers.get('allow'), 'GET');
  t.deepEqual(await answer(postSse), rpcError(405, null, -32000, 'Method not allowed', 'Use GET /sse, or POST /mcp'));
});

test('transport errors - media type, protocol version, JSON and JSON-RPC shape', async (t) => {
  const s = { ...auth, 'mcp-session-id': session };
  t.deepEqual(
    await answer(await rawMcp(svc.baseUrl, ping, { ...s, 'content-type': 'text/plain' })),
    rpcError(415, null, -32000, 'Unsupported Media Type: Content-Type must be application/json'),
  );
  t.deepEqual(
    await answer(await rawMcp(svc.baseUrl, ping, { ...s, 'mcp-protocol-version': '1999-01-01' })),
    rpcError(400, null, -32000, 'Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)'),
  );
  t.deepEqual(await answer(await rawMcp(svc.baseUrl, '{nope', s)), rpcError(400, null, -32700, 'Parse error', 'The body is not valid JSON'));
  t.deepEqual(
    await answer(await rawMcp(svc.baseUrl, [ping], s)),
    rpcError(400, null, -32600, 'Invalid Request', 'Batch requests are not supported; send one JSON-RPC message per request'),
  );
  t.deepEqual(
    await answer(await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 8, method: 'nope/nope' }, s)),
    rpcError(404, 8, -32601, 'Method not found', 'Unknown method: nope/nope'),
  );
});

test('transport errors - REST answers its error body for bad JSON and unknown routes', async (t) => {
  const post = (body: string) => fetch(`${svc.baseUrl}/v1/inboxes`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
  t.deepEqual(await answer(await post('{nope')), { status: 400, body: { success: false, error: 'invalid_json', message: 'The request body is not valid JSON' } });
  t.deepEqual(await answer(await fetch(`${svc.baseUrl}/v1/nothing`, { headers: auth })), {
    status: 404, body: { success: false, error: 'route_not_found', message: 'No route for GET /v1/nothing' },
  });
  t.deepEqual(await answer(await fetch(`${svc.baseUrl}/v1/inboxes`, { method: 'PUT', headers: auth })), {
    status: 404, body: { success: false, error: 'route_not_found', message: 'No route for PUT /v1/inboxes' },
  });
});

test('body limits - each route reads up to its own limit: MCP 4 MiB, OAuth token 64 KiB, REST 1 MiB', async (t) => {
  const s = { ...auth, 'mcp-session-id': session };
  const padded = (bytes: number) => JSON.stringify({ ...ping, params: { pad: 'x'.repeat(bytes) } });
  // 2 MiB is over REST's limit but within MCP's: the message is read and answered.
  t.deepEqual(await answer(await rawMcp(svc.baseUrl, padded(2 * 1024 * 1024), s)), { status: 200, body: { jsonrpc: '2.0', id: 7, result: {} } });
  t.deepEqual(
    await answer(await rawMcp(svc.baseUrl, padded(5 * 1024 * 1024), s)),
    rpcError(413, null, -32600, 'Invalid Request', 'The body exceeds 4194304 bytes'),
  );
  const rest = await fetch(`${svc.baseUrl}/v1/inboxes`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }) });
  t.deepEqual(await answer(rest), { status: 413, body: { success: false, error: 'payload_too_large', message: 'Request body exceeds 1048576 bytes' } });
  const form = (bytes: number) => fetch(`${svc.baseUrl}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=x&pad=${'x'.repeat(bytes)}`,
  });
  t.deepEqual(await answer(await form(32 * 1024)), { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant_type x is not supported' } });
  t.is((await form(100 * 1024)).status, 413);
});

test('transport errors - a malformed inbox address is HTTP 400 -32602 before a long-poll tool opens its stream', async (t) => {
  // The client accepts SSE, which a wait tool answers on; the argument is refused first (SEED.md: 400, -32602).
  for (const name of ['watch_email', 'wait_for_email', 'get_latest_email']) {
    const res = await rawMcp(svc.baseUrl, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name, arguments: { inbox: 'not-an-email', timeout: 10 } } }, { ...auth, 'mcp-session-id': session });
    t.is(res.status, 400, name);
    t.is(res.headers.get('content-type')?.split(';')[0], 'application/json', name);
    t.like(await res.json(), { id: 9, error: { code: -32602, data: 'inbox must be an email address' } }, name);
  }
});
