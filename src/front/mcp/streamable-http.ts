// The Streamable HTTP transport at /mcp (and /mcp/): POST carries one JSON-RPC message, answered as
// JSON, or as SSE when a long-poll tool runs and the client accepts event streams; GET opens the
// session's server stream (or, without an event-stream Accept, describes the server); DELETE ends
// the session. Interoperability rules of DESIGN §4 / research/protocols.md §7 apply throughout.
import type { Deps } from '../../services/deps.js';
import { fail, MailcueError } from '../../errors/registry.js';
import { Cancellation } from '../../util/cancel.js';
import { bearerToken } from '../auth.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import type { Cors } from '../http/cors.js';
import { classify, errorResponse, parseError, type Incoming, type JsonRpcId, type JsonRpcRequest } from './jsonrpc.js';
import { admit, execute, planBlock, negotiateVersion, SERVER_NAME, SERVER_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './mcp-server.js';
import { asFailure, sendJsonRpcFailure } from './jsonrpc-answer.js';
import { requireSession, type McpSession, type SessionStore } from './sessions.js';
import { SseStream } from './sse-stream.js';

const SESSION_HEADER = 'Mcp-Session-Id';
/** One JSON-RPC message per POST, on either transport. */
export const MCP_BODY_MAX_BYTES = 4 * 1024 * 1024;

export interface AgentToolEnv {
  deps: Deps;
  sessions: SessionStore;
  cors: Cors;
  capMs: number;
  /** How long a long-poll may hold so that it answers before the connection cap. */
  maxWaitMs: number;
}

/**
 * Whether the client named event streams in Accept. Nothing is refused with 406: a missing or
 * partial Accept is served (some proxies send only one type), and a long-poll answers as SSE
 * only to a client that asked for it by name, JSON otherwise.
 */
function wantsEventStream(ex: Exchange): boolean {
  return (ex.header('accept') ?? '').toLowerCase().includes('text/event-stream');
}

function versionHeaderProblem(ex: Exchange): MailcueError | null {
  const v = ex.header('mcp-protocol-version');
  if (v === undefined || (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(v)) return null;
  return new MailcueError('unsupported_protocol_version', `Bad Request: Unsupported protocol version: ${v} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
}

/** Protocol versions are dates, so they compare as strings. */
function versionAtLeast(version: string, min: string): boolean {
  return version >= min;
}

async function handlePost(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions, cors } = env;
  // Everything read from the request happens before the first await (uWS rule).
  const token = bearerToken(ex, true);
  const sessionId = ex.header('mcp-session-id');
  const acceptsSse = wantsEventStream(ex);
  cors.apply(ex);
  let id: JsonRpcId = null;
  try {
    cors.check(ex);
    const versionProblem = versionHeaderProblem(ex);
    if (versionProblem) throw versionProblem;
    const contentType = ex.header('content-type');
    if (contentType && !contentType.toLowerCase().includes('application/json')) {
      fail('unsupported_media_type', 'Unsupported Media Type: Content-Type must be application/json');
    }
    let body: unknown;
    try {
      const raw = await ex.body();
      body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      if (err instanceof MailcueError && err.code === 'payload_too_large') {
        fail('payload_too_large', `The body exceeds ${MCP_BODY_MAX_BYTES} bytes`);
      }
      throw parseError();
    }
    const incoming: Incoming = classify(body);
    if (incoming.kind === 'request') id = incoming.message.id;
    if (incoming.kind === 'response') {
      ex.send(202, '', null);
      return;
    }
    const message = incoming.message;
    const isInit = message.method === 'initialize';
    const session = isInit ? undefined : sessions.get(sessionId);
    const sessionOk = isInit || (!!session && !!sessionId);
    const admitted = await admit(deps, token, message, session ?? null, sessionOk);
    const accountId = admitted.admission.account.id;

    if (incoming.kind === 'notification') {
      if (session && session.accountId === accountId) notification(session, message);
      ex.send(202, '', null);
      return;
    }
    if (isInit) {
      const version = negotiateVersion(message.params?.protocolVersion);
      const opened = await sessions.open(accountId, 'streamable-http', version, admitted.plan.toolExecution);
      const result = await execute({ deps, admitted, session: opened, signal: ex.signal, maxWaitMs: env.maxWaitMs, notify: null }, message);
      ex.sendJson(200, { jsonrpc: '2.0', id, result }, [[SESSION_HEADER, opened.id]]);
      return;
    }
    await answerRequest(env, ex, requireSession(sessionId, session, accountId), admitted, message, id!, acceptsSse);
  } catch (err) {
    sendJsonRpcFailure(ex, deps.config, 'mcp', id, err, sessionId ? [[SESSION_HEADER, sessionId]] : []);
  }
}

function notification(session: McpSession, message: JsonRpcRequest): void {
  if (message.method === 'notifications/cancelled') {
    const requestId = message.params?.requestId;
    session.inflight.get(JSON.stringify(requestId))?.abort();
  }
}

async function answerRequest(
  env: AgentToolEnv, ex: Exchange, session: McpSession, admitted: Awaited<ReturnType<typeof admit>>, message: JsonRpcRequest, id: JsonRpcId, acceptsSse: boolean,
): Promise<void> {
  const controller = new Cancellation();
  const key = JSON.stringify(id);
  session.inflight.set(key, controller);
  ex.signal.addEventListener('abort', () => controller.abort());
  let stream: SseStream | null = null;
  try {
    // Long-poll tools answer on an SSE stream (keep-alives, progress) where the client takes one.
    if (admitted.tool?.longPoll && acceptsSse && !admitted.deferred) {
      stream = new SseStream(ex, [[SESSION_HEADER, session.id]], env.capMs);
      if (versionAtLeast(session.protocolVersion, '2025-11-25')) stream.prime(`${session.id}:${key}:0`);
    }
    const s = stream;
    const result = await execute(
      { deps: env.deps, admitted, session, signal: controller, maxWaitMs: env.maxWaitMs, notify: s ? (n) => s.message(n) : null },
      message,
    );
    if (s) {
      s.message({ jsonrpc: '2.0', id, result });
      s.close();
    } else {
      ex.sendJson(200, { jsonrpc: '2.0', id, result }, [[SESSION_HEADER, session.id]]);
    }
  } catch (err) {
    if (stream) {
      stream.message(errorResponse(id, asFailure(err)));
      stream.close();
    } else throw err;
  } finally {
    session.inflight.delete(key);
  }
}

async function handleGet(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions, cors } = env;
  const token = bearerToken(ex, true);
  const sessionId = ex.header('mcp-session-id');
  const accept = (ex.header('accept') ?? '').toLowerCase();
  cors.apply(ex);
  try {
    cors.check(ex);
    const found = sessions.get(sessionId);
    const admitted = await admit(deps, token, { jsonrpc: '2.0', method: 'ping' }, found ?? null, false);
    if (!accept.includes('text/event-stream')) {
      const plan = admitted.plan;
      const block = plan.toolExecution ? {} : { error: planBlock(plan).message, upgrade: 'Growth required' };
      ex.sendJson(200, {
        name: SERVER_NAME,
        version: SERVER_VERSION,
        protocolVersions: SUPPORTED_PROTOCOL_VERSIONS,
        transports: { 'streamable-http': `${deps.config.mcpUrl}/mcp`, sse: `${deps.config.mcpUrl}/sse` },
        plan: plan.name,
        tool_execution: plan.toolExecution,
        ...block,
      });
      return;
    }
    const session = requireSession(sessionId, found, admitted.admission.account.id);
    if (session.stream && !session.stream.isClosed) fail('session_conflict', 'Conflict: Only one SSE stream is allowed per session');
    const stream = new SseStream(ex, [[SESSION_HEADER, session.id]], env.capMs);
    session.stream = stream;
    stream.onClose(() => {
      if (session.stream === stream) session.stream = null;
      session.lastSeen = Date.now();
    });
  } catch (err) {
    sendJsonRpcFailure(ex, deps.config, 'mcp', null, err);
  }
}

async function handleDelete(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions, cors } = env;
  const token = bearerToken(ex, true);
  const sessionId = ex.header('mcp-session-id');
  cors.apply(ex);
  try {
    cors.check(ex);
    const found = sessions.get(sessionId);
    const admitted = await admit(deps, token, { jsonrpc: '2.0', method: 'ping' }, found ?? null, false);
    sessions.close(requireSession(sessionId, found, admitted.admission.account.id).id);
    ex.sendJson(200, { success: true, message: 'Session ended' });
  } catch (err) {
    sendJsonRpcFailure(ex, deps.config, 'mcp', null, err);
  }
}

export function streamableHttpRoutes(router: Router, env: AgentToolEnv): void {
  for (const path of ['/mcp', '/mcp/']) {
    router
      .add('post', path, (ex) => handlePost(env, ex), MCP_BODY_MAX_BYTES)
      .add('get', path, (ex) => handleGet(env, ex))
      .add('del', path, (ex) => handleDelete(env, ex))
      .add('options', path, (ex) => env.cors.preflight(ex))
      .add('any', path, (ex) => {
        env.cors.apply(ex);
        const refusal = new MailcueError('method_not_allowed', 'Method not allowed.', { hint: 'Use GET, POST or DELETE on /mcp' });
        sendJsonRpcFailure(ex, env.deps.config, 'mcp', null, refusal, [['Allow', 'GET, POST, DELETE']]);
      });
  }
}
