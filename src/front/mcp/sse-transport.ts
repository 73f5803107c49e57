// The legacy HTTP+SSE transport (2024-11-05): GET /sse opens the stream and names the POST
// endpoint in its first `endpoint` event; POST /messages?sessionId= answers 202 and the JSON-RPC
// response travels on the stream as `event: message`. The session lives as long as the stream.
import { fail, MailcueError } from '../../errors/registry.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import { errorResponse } from './jsonrpc.js';
import { asFailure, sendJsonRpcFailure } from './jsonrpc-answer.js';
import { admit } from './mcp-server.js';
import { agentToolRequest, MCP_BODY_MAX_BYTES, onNotification, readIncoming, runInflight, type AgentToolEnv } from './request-pipeline.js';
import { SseStream } from './sse-stream.js';

const LEGACY_VERSION = '2024-11-05';

function openStream(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions } = env;
  return agentToolRequest(env, ex, 'sse', async (req) => {
    const admitted = await admit(deps, req.token, { jsonrpc: '2.0', method: 'ping' }, null, false);
    // Refused sessions (cap reached) get 429 before any stream starts.
    const session = await sessions.open(admitted.admission.account.id, 'sse', LEGACY_VERSION, admitted.plan.toolExecution);
    const stream = new SseStream(ex, [], env.capMs);
    session.stream = stream;
    stream.onClose(() => sessions.close(session.id));
    // Relative, so clients behind proxies keep the origin they connected to.
    stream.event('endpoint', `/messages?sessionId=${session.id}`);
  });
}

function postMessage(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions } = env;
  const sessionId = ex.query.get('sessionId');
  return agentToolRequest(env, ex, 'sse', async (req) => {
    if (!sessionId) fail('session_required', 'Bad Request: sessionId query parameter is required');
    const session = sessions.get(sessionId);
    if (!session?.stream || session.stream.isClosed) fail('session_not_found', 'Session not found');
    const incoming = await readIncoming(ex);
    ex.send(202, 'Accepted', 'text/plain; charset=utf-8');
    if (incoming.kind === 'response') return;
    const message = incoming.message;
    const id = incoming.kind === 'request' ? incoming.message.id : null;
    const stream = session.stream;
    try {
      const admitted = await admit(deps, req.token, message, session, true);
      if (admitted.admission.account.id !== session.accountId) fail('session_not_found', 'Session not found');
      if (incoming.kind === 'notification') {
        onNotification(session, message);
        return;
      }
      const result = await runInflight(env, session, admitted, message, id, (abort) => stream.onClose(abort), (n) => stream.message(n));
      stream.message({ jsonrpc: '2.0', id, result });
    } catch (err) {
      // The HTTP status is spent (202); the same JSON-RPC error goes on the stream.
      if (incoming.kind === 'request') stream.message(errorResponse(id, asFailure(err)));
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
