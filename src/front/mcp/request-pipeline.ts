// What both agent-tool transports do with an HTTP request, written once: the prologue (bearer
// token read before any await, CORS headers, Origin check) and the JSON-RPC error answer; reading
// one JSON-RPC message from a POST; notifications/cancelled; and running a request as an
// in-flight entry of its session that a cancellation or a hang-up aborts.
import { fail, MailcueError } from '../../errors/registry.js';
import type { Deps } from '../../services/deps.js';
import { Cancellation } from '../../util/cancel.js';
import { bearerToken } from '../auth.js';
import type { Cors } from '../http/cors.js';
import type { Exchange } from '../http/exchange.js';
import { classify, parseBody, parseError, type Incoming, type JsonRpcId, type JsonRpcRequest } from './jsonrpc.js';
import { sendJsonRpcFailure, type McpResource } from './jsonrpc-answer.js';
import { execute, type Admitted } from './mcp-server.js';
import type { McpSession, SessionStore } from './sessions.js';

export interface AgentToolEnv {
  deps: Deps;
  sessions: SessionStore;
  cors: Cors;
  capMs: number;
  /** How long a long-poll may hold so that it answers before the connection cap. */
  maxWaitMs: number;
}

/** One JSON-RPC message per POST, on either transport. */
export const MCP_BODY_MAX_BYTES = 4 * 1024 * 1024;

/** What a request handler learns in the prologue, and what the error answer needs from it. */
export interface AgentToolRequest {
  readonly token: string | null;
  /** The JSON-RPC id once known: an error answer echoes it. */
  id: JsonRpcId;
  /** Headers every error answer of this request carries (the session id, on /mcp). */
  errorHeaders: [string, string][];
}

/**
 * Runs `work` for one agent-tool HTTP request. Everything read from the request happens before
 * the first await (uWS rule); whatever `work` throws is answered as a JSON-RPC error with the
 * HTTP status of its registry entry.
 */
export async function agentToolRequest(env: AgentToolEnv, ex: Exchange, resource: McpResource, work: (req: AgentToolRequest) => Promise<void>): Promise<void> {
  const req: AgentToolRequest = { token: bearerToken(ex, true), id: null, errorHeaders: [] };
  env.cors.apply(ex);
  try {
    env.cors.check(ex);
    await work(req);
  } catch (err) {
    sendJsonRpcFailure(ex, env.deps.config, resource, req.id, err, req.errorHeaders);
  }
}

/** The POST body as one JSON-RPC message: 413 over the limit, -32700 if not JSON, -32600 if too deep or not JSON-RPC. */
export async function readIncoming(ex: Exchange): Promise<Incoming> {
  let raw: Buffer;
  try {
    raw = await ex.body();
  } catch (err) {
    if (err instanceof MailcueError && err.code === 'payload_too_large') fail('payload_too_large', `The body exceeds ${MCP_BODY_MAX_BYTES} bytes`);
    throw parseError();
  }
  // Nested deeper than 64 levels: HTTP 400 -32600 before it is parsed (DESIGN §7).
  return classify(parseBody(raw.toString('utf8')));
}

/** notifications/cancelled aborts the named in-flight request of the session; other notifications need nothing. */
export function onNotification(session: McpSession, message: JsonRpcRequest): void {
  if (message.method === 'notifications/cancelled') session.inflight.get(JSON.stringify(message.params?.requestId))?.abort();
}

/**
 * Runs an admitted request as an in-flight entry of its session: notifications/cancelled naming
 * its id, or `hangUp` (the client went away), aborts it.
 */
export async function runInflight(
  env: AgentToolEnv, session: McpSession, admitted: Admitted, message: JsonRpcRequest, id: JsonRpcId,
  hangUp: (abort: () => void) => void, notify: ((message: unknown) => void) | null,
): Promise<unknown> {
  const controller = new Cancellation();
  const key = JSON.stringify(id);
  session.inflight.set(key, controller);
  hangUp(() => controller.abort());
  try {
    return await execute({ deps: env.deps, admitted, session, signal: controller, maxWaitMs: env.maxWaitMs, notify }, message);
  } finally {
    session.inflight.delete(key);
  }
}
