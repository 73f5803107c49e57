// The legacy HTTP+SSE transport (2024-11-05): GET /sse opens the stream and names the POST
// endpoint in its first `endpoint` event; POST /messages?sessionId= answers 202 and the JSON-RPC
// response travels on the stream as `event: message`. The session lives as long as the stream.
import { fail, MailcueError } from '../../errors/registry.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import { parseCredential } from '../../security/credentials.js';
import { errorResponse, resultResponse, type JsonRpcRequest } from './jsonrpc.js';
import { asFailure, sendJsonRpcFailure } from './jsonrpc-answer.js';
import { admitToken } from '../auth.js';
import { admit, type Admitted } from './mcp-server.js';
import { agentToolRequest, MCP_BODY_MAX_BYTES, onNotification, readIncoming, runInflight, type AgentToolEnv } from './request-pipeline.js';
import { SseStream } from './sse-stream.js';

const LEGACY_VERSION = '2024-11-05';
const PING: JsonRpcRequest = { jsonrpc: '2.0', method: 'ping' };

function openStream(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions } = env;
  const viaQuery = ex.header('authorization') === undefined;
  return agentToolRequest(env, ex, 'sse', async (req) => {
    const admitted = await admit(deps, req.token, { jsonrpc: '2.0', method: 'ping' }, null, false);
    // Refused sessions (cap reached) get 429 before any stream starts.
    const session = await sessions.open(admitted.admission, 'sse', LEGACY_VERSION);
    const stream = new SseStream(ex, [], env.capMs);
    session.stream = stream;
    stream.onClose(() => sessions.close(session.id));
    // Relative, so clients behind proxies keep the origin they connected to. The session id alone
    // admits nothing (DESIGN §7): a client that authenticated in the query gets its credential back
    // in the endpoint, since it cannot add a header to its POSTs either.
    const credential = viaQuery && req.token ? `&access_token=${encodeURIComponent(req.token)}` : '';
    stream.event('endpoint', `/messages?sessionId=${session.id}${credential}`);
  });
}

/**
 * POST /messages: the caller is admitted before anything is answered. No valid credential is 401,
 * and a session that is not the caller's (another account's, or of a rotated-out key) is 404, both
 * as HTTP answers; every other failure goes on the stream, as the transport specifies.
 */
function postMessage(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions } = env;
  const sessionId = ex.query.get('sessionId');
  return agentToolRequest(env, ex, 'sse', async (req) => {
    if (!sessionId) fail('session_required', 'Bad Request: sessionId query parameter is required');
    // Read first (uWS hands the body over only to a reader set before any await).
    const body = readIncoming(ex);
    body.catch(() => undefined);
    // Held on this thread, or on a sibling front thread that takes the answers (front-threads.ts).
    const found = sessions.get(sessionId) ?? (await sessions.find(sessionId, req.token));
    // An id no open session has names nothing, whoever asks (it is random: nothing to probe); a
    // caller without a valid credential is told that first (401), as on /mcp.
    if (!found?.stream || found.stream.isClosed) {
      await admitToken(deps, req.token, { kind: 'none' });
      fail('session_not_found', 'Session not found');
    }
    const stream = found.stream;
    const incoming = await body;
    // A response the client sent us still needs its caller admitted: as a ping.
    const message = incoming.kind === 'response' ? PING : incoming.message;
    if (incoming.kind === 'request') req.id = incoming.message.id;
    const id = req.id;
    let admitted: Admitted;
    try {
      admitted = await admit(deps, req.token, message, found, true);
    } catch (err) {
      if (err instanceof MailcueError && err.code === 'unauthorized') throw err;
      // The credential is valid (only then do plan, rate and credit checks run): whose session?
      if (found.accountId !== parseCredential(req.token!)?.accountId) fail('session_not_found', 'Session not found');
      ex.send(202, 'Accepted', 'text/plain; charset=utf-8');
      if (incoming.kind === 'request') stream.message(errorResponse(id, asFailure(err)));
      return;
    }
    const session = sessions.require(sessionId, found, admitted.admission);
    ex.send(202, 'Accepted', 'text/plain; charset=utf-8');
    if (incoming.kind === 'response') return;
    if (incoming.kind === 'notification') {
      onNotification(session, message);
      return;
    }
    try {
      const result = await runInflight(env, session, admitted, message, id, (abort) => stream.onClose(abort), (n) => stream.message(n));
      stream.messageText(resultResponse(id, result));
    } catch (err) {
      // The HTTP status is spent (202); the same JSON-RPC error goes on the stream.
      stream.message(errorResponse(id, asFailure(err)));
    }
  });
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
