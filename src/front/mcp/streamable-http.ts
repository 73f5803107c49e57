// The Streamable HTTP transport at /mcp (and /mcp/): POST carries one JSON-RPC message, answered as
// JSON, or as SSE when a long-poll tool runs and the client accepts event streams; GET opens the
// session's server stream (or, without an event-stream Accept, describes the server); DELETE ends
// the session. Interoperability rules of DESIGN §4 / research/protocols.md §7 apply throughout.
import { fail, MailcueError } from '../../errors/registry.js';
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import { resultResponse, type JsonRpcId, type JsonRpcRequest } from './jsonrpc.js';
import { sendJsonRpcFailure } from './jsonrpc-answer.js';
import { admit, execute, planBlock, negotiateVersion, progressTokenOf, SERVER_NAME, SERVER_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type Admitted } from './mcp-server.js';
import { agentToolRequest, MCP_BODY_MAX_BYTES, onNotification, readIncoming, runInflight, type AgentToolEnv } from './request-pipeline.js';
import { ParkedToolCall, ToolCallAnswer } from './parked-tool-call.js';
import type { McpSession } from './sessions.js';
import { SseStream } from './sse-stream.js';
import { parseEventId, ResumableStream, resumeStream } from './resumable-stream.js';

const SESSION_HEADER = 'Mcp-Session-Id';


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

function handlePost(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions } = env;
  const sessionId = ex.header('mcp-session-id');
  const acceptsSse = wantsEventStream(ex);
  const versionProblem = versionHeaderProblem(ex);
  const contentType = ex.header('content-type');
  return agentToolRequest(env, ex, 'mcp', async (req) => {
    if (sessionId) req.errorHeaders = [[SESSION_HEADER, sessionId]];
    if (versionProblem) throw versionProblem;
    if (contentType && !contentType.toLowerCase().includes('application/json')) {
      fail('unsupported_media_type', 'Unsupported Media Type: Content-Type must be application/json');
    }
    const incoming = await readIncoming(ex);
    if (incoming.kind === 'response') {
      ex.send(202, '', null);
      return;
    }
    if (incoming.kind === 'request') req.id = incoming.message.id;
    const message = incoming.message;
    const isInit = message.method === 'initialize';
    // Held here, or opened through another front (one shard round trip, the first time here).
    const session = isInit ? undefined : (sessions.get(sessionId) ?? (await sessions.find(sessionId, req.token)));
    const sessionOk = isInit || (!!session && !!sessionId);
    const admitted = await admit(deps, req.token, message, session ?? null, sessionOk);
    const accountId = admitted.admission.account.id;
    // The per-minute limit this call counted against (tool calls: ops; the rest: REST requests).
    const { rate } = admitted.admission;
    ex.setRateLimit(rate.limit, rate.remaining, rate.reset_s);

    if (incoming.kind === 'notification') {
      if (session && session.accountId === accountId && session.generation === admitted.admission.generation) onNotification(session, message);
      ex.send(202, '', null);
      return;
    }
    if (isInit) {
      const version = negotiateVersion(message.params?.protocolVersion);
      const opened = await sessions.open(admitted.admission, 'streamable-http', version);
      const result = await execute({ deps, admitted, session: opened, signal: ex.signal, maxWaitMs: env.maxWaitMs, notify: null }, message);
      ex.sendJsonText(200, resultResponse(req.id, result), [[SESSION_HEADER, opened.id]]);
      return;
    }
    await answerRequest(env, ex, sessions.require(sessionId, session, admitted.admission), admitted, message, req.id, acceptsSse);
  });
}

async function answerRequest(
  env: AgentToolEnv, ex: Exchange, session: McpSession, admitted: Admitted, message: JsonRpcRequest, id: JsonRpcId, acceptsSse: boolean,
): Promise<void> {
  // Long-poll tools answer on an SSE stream (keep-alives, progress) where the client takes one.
  const longPoll = admitted.tool?.longPoll && !admitted.deferred;
  const stream = longPoll && acceptsSse ? new SseStream(ex, [[SESSION_HEADER, session.id]], env.capMs) : null;
  // Clients on 2025-11-25 or later resume a broken stream with Last-Event-ID (issue 36).
  const resumable = stream && versionAtLeast(session.protocolVersion, '2025-11-25') ? new ResumableStream(env.deps, session, stream, env.deps.config.mcpRetryMs) : null;
  if (stream && !resumable) stream.open();
  const notify = resumable ? (n: unknown) => resumable.message(n) : stream ? (n: unknown) => stream.message(n) : null;
  if (longPoll && admitted.tool!.wait) {
    // Parked as one record: this function and its callers return once the wait is parked.
    const call = new ParkedToolCall(env.deps.config, ex, stream, session, id, SESSION_HEADER, resumable);
    return call.start({ deps: env.deps, admitted, session, maxWaitMs: env.maxWaitMs, notify }, admitted.args!, progressTokenOf(message));
  }
  const reply = new ToolCallAnswer(env.deps.config, ex, stream, session, id, SESSION_HEADER, resumable);
  try {
    const hangUp = (abort: () => void) => ex.signal.addEventListener('abort', abort);
    reply.answer(await runInflight(env, session, admitted, message, id, hangUp, notify));
  } catch (err) {
    reply.fail(err);
  }
}

function handleGet(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions } = env;
  const sessionId = ex.header('mcp-session-id');
  const accept = (ex.header('accept') ?? '').toLowerCase();
  const lastEventId = ex.header('last-event-id');
  return agentToolRequest(env, ex, 'mcp', async (req) => {
    const found = await sessions.find(sessionId, req.token);
    const admitted = await admit(deps, req.token, { jsonrpc: '2.0', method: 'ping' }, found ?? null, false);
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
    const session = sessions.require(sessionId, found, admitted.admission);
    if (lastEventId !== undefined) {
      // A reconnection: the events of the stream that broke, from the account's shard, not a new stream.
      const from = parseEventId(lastEventId);
      if (!from) fail('invalid_parameter', `Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 64))} names no stream of this session`);
      resumeStream(deps, ex, session, from, [[SESSION_HEADER, session.id]], env.capMs, deps.config.mcpRetryMs);
      return;
    }
    if (session.stream && !session.stream.isClosed) fail('session_conflict', 'Conflict: Only one SSE stream is allowed per session');
    const stream = new SseStream(ex, [[SESSION_HEADER, session.id]], env.capMs);
    stream.open();
    session.stream = stream;
    stream.onClose(() => {
      if (session.stream === stream) session.stream = null;
      session.lastSeen = Date.now();
    });
  });
}

function handleDelete(env: AgentToolEnv, ex: Exchange): Promise<void> {
  const { deps, sessions } = env;
  const sessionId = ex.header('mcp-session-id');
  return agentToolRequest(env, ex, 'mcp', async (req) => {
    const found = await sessions.find(sessionId, req.token);
    // Ending a session is not metered: a rate-limited client must still be able to free its slot.
    const admitted = await admit(deps, req.token, { jsonrpc: '2.0', method: 'ping' }, found ?? null, false, { kind: 'none' });
    await sessions.end(sessions.require(sessionId, found, admitted.admission).id);
    ex.sendJson(200, { success: true, message: 'Session ended' });
  });
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
