// How the agent-tool transports answer failures over HTTP: the JSON-RPC error body with the HTTP
// status of SEED.md's table, and on 401 the WWW-Authenticate challenge naming the resource
// metadata of the endpoint the client used (RFC 9728).
import type { Config } from '../../config/config.js';
import { MailcueError } from '../../errors/registry.js';
import type { Exchange } from '../http/exchange.js';
import { errorResponse, JsonRpcFailure, toJsonRpcFailure, type JsonRpcId } from './jsonrpc.js';

export type McpResource = 'mcp' | 'sse';

export function resourceMetadataUrl(config: Config, resource: McpResource): string {
  return `${config.mcpUrl}/.well-known/oauth-protected-resource/${resource}`;
}

export function asFailure(err: unknown): JsonRpcFailure {
  return (
    toJsonRpcFailure(err) ??
    // A service error with no JSON-RPC code outside a tool call (rare): report it as invalid params.
    toJsonRpcFailure(new MailcueError('invalid_parameter', (err as Error).message))!
  );
}

export function sendJsonRpcFailure(ex: Exchange, config: Config, resource: McpResource, id: JsonRpcId, err: unknown, headers: [string, string][] = []): void {
  const failure = asFailure(err);
  const extra: [string, string][] = [...failure.headers, ...headers];
  // Never a challenge on the plan error: insufficient_scope there sends connectors into a sign-in loop.
  if (failure.http === 401) extra.push(['WWW-Authenticate', `Bearer resource_metadata="${resourceMetadataUrl(config, resource)}"`]);
  ex.sendJson(failure.http, errorResponse(id, failure), extra);
}
