// The legacy HTTP+SSE transport (2024-11-05): GET /sse opens the stream and names the POST
// endpoint in its first `endpoint` event; POST /messages?sessionId= answers 202 and the JSON-RPC
// response travels on the stream as `event: message`. The session lives as long as the stream.
import { fail, MailcueError } from '../../errors/registry.js';
import { parseCredential } from '../../security/credentials.js';
import { Cancellation } from '../../util/cancel.js';
import { bearerToken } from '../auth.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import { classify, errorResponse, parseBody, type JsonRpcId, type JsonRpcRequest } from './jsonrpc.js';
import { admit, execute, type Admitted } from './mcp-server.js';
import { asFailure, sendJsonRpcFailure } from './jsonrpc-answer.js';
import { sessionNotFound, type McpSession } from './sessions.js';
import { SseStream } from './sse-stream.js';
import { MCP_BODY_MAX_BYTES, type AgentToolEnv } from './streamable-http.js';

const LEGACY_VERSION = '2024-11-05';
/** A response the client sent us still needs its caller admitted; it is admitted as a ping. */
const PING: JsonRpcRequest = { jsonrpc: '2.0', method: 'ping' };

async function openStream(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions, cors } = env;
  const header = bearerToken(ex);
  const token = header ?? ex.query.get('access_token');
  cors.apply(ex);
  try {
    cors.check(ex);
    const admitted = await admit(deps, token, { jsonrpc: '2.0', method: 'ping' }, null, false);
    // Refused sessions (cap reached) get 429 before any stream starts.
    const session = await sessions.open(admitted.admission, 'sse', LEGACY_VERSION);
    const stream = new SseStream(ex, [], env.capMs);
    session.stream = stream;
    stream.onClose(() => sessions.close(session.id));
    // Relative, so clients behind proxies keep the origin they connected to. The session id alone
    // admits nothing (DESIGN §7): a client that authenticated in the query gets its credential back
    // in the endpoint, since it cannot add a header to the POSTs either.
    const credential = header === null && token ? `&access_token=${encodeURIComponent(token)}` : '';
    stream.event('endpoint', `/messages?sessionId=${session.id}${credential}`);
  } catch (err) {
    sendJsonRpcFailure(ex, deps.config, 'sse', null, err);
  }
}

/**
 * POST /messages: the caller is admitted before anything else. No valid credential is 401, and a
 * session that is not the caller's (unknown, another account's, or of a rotated-out key) is 404,
 * both as HTTP answers; every other failure goes on the stream, as the transport specifies.
 */
async function postMessage(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions, cors } = env;
  const token = bearerToken(ex, true);
  const sessionId = ex.query.get('sessionId');
  cors.apply(ex);
  let id: JsonRpcId = null;
  try {
    cors.check(ex);
    if (!sessionId) fail('session_required', 'Bad Request: sessionId query parameter is required');
    const found = sessions.get(sessionId);
    // An id no open session has names nothing, whoever asks (it is random: nothing to probe).
    const live = found?.stream && !found.stream.isClosed ? found : undefined;
    if (!live) throw sessionNotFound();
    const incoming = classify(parseBody((await ex.body()).toString('utf8')));
    const message = incoming.kind === 'response' ? PING : incoming.message;
    if (incoming.kind === 'request') id = incoming.message.id;
    let admitted: Admitted;
    try {
      admitted = await admit(deps, token, message, live, true);
    } catch (err) {
      if (err instanceof MailcueError && err.code === 'unauthorized') throw err;
      // The credential is valid (only then do plan, rate and credit checks run): whose session?
      if (live.accountId !== parseCredential(token!)?.accountId) throw sessionNotFound();
      ex.send(202, 'Accepted', 'text/plain; charset=utf-8');
      if (incoming.kind === 'request') live.stream!.message(errorResponse(id, asFailure(err)));
      return;
    }
    const session = sessions.require(sessionId, live, admitted.admission);
    ex.send(202, 'Accepted', 'text/plain; charset=utf-8');
    if (incoming.kind === 'response') return;
    if (incoming.kind === 'notification') {
      if (message.method === 'notifications/cancelled') session.inflight.get(JSON.stringify(message.params?.requestId))?.abort();
      return;
    }
    await answerOnStream(env, session, admitted, message, id);
  } catch (err) {
    sendJsonRpcFailure(ex, deps.config, 'sse', id, err);
  }
}

async function answerOnStream(env: AgentToolEnv, session: McpSession, admitted: Admitted, message: JsonRpcRequest, id: JsonRpcId): Promise<void> {
  const stream = session.stream!;
  const key = JSON.stringify(id);
  const controller = new Cancellation();
  session.inflight.set(key, controller);
  stream.onClose(() => controller.abort());
  try {
    const result = await execute(
      { deps: env.deps, admitted, session, signal: controller, maxWaitMs: env.maxWaitMs, notify: (n) => stream.message(n) },
      message,
    );
    stream.message({ jsonrpc: '2.0', id, result });
  } catch (err) {
    // The HTTP status is spent (202); the same JSON-RPC error goes on the stream.
    stream.message(errorResponse(id, asFailure(err)));
  } finally {
    session.inflight.delete(key);
  }
}

export function sseRoutes(router: Router, env: AgentToolEnv): void {
  router
    .add('get', '/sse', (ex) => openStream(env, ex))
    // Clients probe with a Streamable HTTP POST first and fall back to SSE on 404/405.
    .add('post', '/sse', (ex) => {
      env.cors.apply(ex);
      const refusal = new MailcueError('method_not_allowed', 'Method not allowed', { hint: 'Use GET /sse, or POST /mcp' });
      sendJsonRpcFailure(ex, env.deps.config, 'sse', null, refusal, [['Allow', 'GET']]);
    })
    .add('options', '/sse', (ex) => env.cors.preflight(ex))
    .add('post', '/messages', (ex) => postMessage(env, ex), MCP_BODY_MAX_BYTES)
    .add('options', '/messages', (ex) => env.cors.preflight(ex));
}
