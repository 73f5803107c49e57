// JSON-RPC 2.0 for the agent-tool server: message shapes, validation of what arrives, and the one
// mapping from Mailcue errors to JSON-RPC errors and their HTTP statuses (SEED.md "Errors").
import { ERRORS, MailcueError, asMailcueError, type ErrorCode } from '../../errors/registry.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http/json-depth.js';

export type JsonRpcId = string | number | null;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcError };

/** A request, a notification (no id), or a response the client sent us (ignored). */
export type Incoming =
  | { kind: 'request'; message: JsonRpcRequest & { id: JsonRpcId } }
  | { kind: 'notification'; message: JsonRpcRequest }
  | { kind: 'response' };

/**
 * A tools/call result whose tool output is already JSON: MCP carries it twice (as text and as
 * structuredContent), and `resultResponse` splices that one encoding into both places instead of
 * serializing the output object a second time. `toJSON` keeps any other serializer correct.
 */
export class ToolCallResult {
  constructor(readonly json: string, private readonly structured?: unknown) {}

  toJSON() {
    return { content: [{ type: 'text', text: this.json }], structuredContent: this.structured ?? JSON.parse(this.json) };
  }
}

/** A tool's output that is JSON text already (built where its data was read): passed through, not encoded again. */
export class JsonText {
  constructor(readonly text: string) {}
}

const RAW_C1 = /[\x7f-\x9f\u2028\u2029]/g;

/**
 * JSON text with DEL, the C1 controls and U+2028/9 escaped too: JSON.stringify escapes only C0, so
 * a subject's 8-bit CSI (U+009B) reached the tool's text raw, and a host that prints that text to a
 * terminal would run it (DESIGN §7 "Output stays inert"). The data it decodes to is the same.
 */
export function inertJson(json: string): string {
  // Without a match, replace hands back the same string: one scan, no copy.
  return json.replace(RAW_C1, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A tool's output as a tools/call result, encoded once. */
export function toolCallResult(out: Record<string, unknown> | JsonText): ToolCallResult {
  return out instanceof JsonText ? new ToolCallResult(inertJson(out.text)) : new ToolCallResult(inertJson(JSON.stringify(out)), out);
}

/** The JSON text of a successful response. */
export function resultResponse(id: JsonRpcId, result: unknown): string {
  if (!(result instanceof ToolCallResult)) return JSON.stringify({ jsonrpc: '2.0', id, result });
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${JSON.stringify(result.json)}}],"structuredContent":${result.json}}}`;
}

/** A Mailcue error as the agent-tool transports answer it: the JSON-RPC error and its HTTP status. */
export class JsonRpcFailure extends Error {
  constructor(readonly http: number, readonly error: JsonRpcError, readonly headers: [string, string][] = []) {
    super(error.message);
  }
}

export const invalidRequest = (details: string) => new MailcueError('invalid_request', details);
export const tooDeep = () => invalidRequest(`The JSON nests deeper than ${MAX_JSON_DEPTH} levels`);
export const parseError = () => new MailcueError('invalid_json', 'The body is not valid JSON');
export const methodNotFound = (details: string) => new MailcueError('method_not_found', details);
export const invalidParams = (details: string) => new MailcueError('invalid_parameter', details);

/** A JSON-RPC body parsed, or the transport's 400: too deep (-32600) or not JSON (-32700). */
export function parseBody(text: string): unknown {
  if (nestsDeeperThan(text)) throw tooDeep();
  try {
    return JSON.parse(text);
  } catch {
    throw parseError();
  }
}

export function classify(body: unknown): Incoming {
  if (Array.isArray(body)) throw invalidRequest('Batch requests are not supported; send one JSON-RPC message per request');
  if (typeof body !== 'object' || body === null) throw invalidRequest('A JSON-RPC message must be a JSON object');
  const m = body as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') throw invalidRequest('jsonrpc must be "2.0"');
  if (!('method' in m)) {
    if ('result' in m || 'error' in m) return { kind: 'response' };
    throw invalidRequest('A request needs a method');
  }
  if (typeof m.method !== 'string' || m.method === '') throw invalidRequest('method must be a non-empty string');
  if (m.params !== undefined && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params))) {
    throw invalidRequest('params must be an object');
  }
  if (!('id' in m)) return { kind: 'notification', message: m as unknown as JsonRpcRequest };
  if (m.id !== null && typeof m.id !== 'string' && typeof m.id !== 'number') throw invalidRequest('id must be a string or a number');
  return { kind: 'request', message: m as unknown as JsonRpcRequest & { id: JsonRpcId } };
}

/** The transports' own refusals answer their message, and again as `data`. */
const asIs = (e: MailcueError) => ({ message: e.message, data: (e.details?.hint as string | undefined) ?? e.message });

/** SEED.md's messages and data for the codes it lists; JSON-RPC 2.0's and DESIGN §4's for the rest. */
const JSONRPC_TEXT: Partial<Record<ErrorCode, (e: MailcueError) => { message: string; data: unknown }>> = {
  plan_required: (e) => ({ message: e.message, data: 'Plan upgrade required' }),
  unauthorized: () => ({ message: 'Invalid API key', data: 'Authentication failed' }),
  invalid_parameter: (e) => ({ message: 'Invalid params', data: e.message }),
  rate_limited: (e) => ({ message: e.message, data: `Retry after ${e.details?.retry_after_s ?? 60} seconds` }),
  session_limit: (e) => ({ message: e.message, data: 'Close an open session (DELETE /mcp) or wait for one to idle out' }),
  credits_exhausted: (e) => ({ message: e.message, data: 'Credits reset on the first day of the next UTC month' }),
  internal: () => ({ message: 'Internal error', data: 'See the server log' }),
  invalid_json: (e) => ({ message: 'Parse error', data: e.message }),
  invalid_request: (e) => ({ message: 'Invalid Request', data: e.message }),
  payload_too_large: (e) => ({ message: 'Invalid Request', data: e.message }),
  method_not_found: (e) => ({ message: 'Method not found', data: e.message }),
  resource_not_found: (e) => ({ message: 'Resource not found', data: e.message }),
  forbidden_origin: asIs,
  method_not_allowed: asIs,
  unsupported_media_type: asIs,
  unsupported_protocol_version: asIs,
  session_required: asIs,
  session_not_found: asIs,
  session_conflict: asIs,
};

/** Maps a thrown error to a JSON-RPC failure; null means "answer it as a tool result with isError". */
export function toJsonRpcFailure(thrown: unknown): JsonRpcFailure | null {
  if (thrown instanceof JsonRpcFailure) return thrown;
  const err = asMailcueError(thrown);
  const spec = ERRORS[err.code];
  if (spec.jsonrpc === null) return null;
  const text = JSONRPC_TEXT[err.code]?.(err) ?? { message: err.message, data: err.code };
  const headers: [string, string][] = [];
  const d = err.details ?? {};
  if (typeof d.retry_after_s === 'number') headers.push(['Retry-After', String(d.retry_after_s)]);
  // A per-minute limit (DESIGN §4), as on REST: the window's limit, nothing left, seconds to the next.
  if (typeof d.limit === 'number' && typeof d.reset_s === 'number') {
    headers.push(['RateLimit-Limit', String(d.limit)], ['RateLimit-Remaining', '0'], ['RateLimit-Reset', String(d.reset_s)]);
  }
  const http = 'mcpHttp' in spec ? spec.mcpHttp : spec.http;
  return new JsonRpcFailure(http, { code: spec.jsonrpc, message: text.message, data: text.data }, headers);
}

/** SEED.md's error object always carries `data` (a string); transport errors reuse the message. */
export function errorResponse(id: JsonRpcId, failure: JsonRpcFailure): JsonRpcResponse {
  const { code, message, data } = failure.error;
  return { jsonrpc: '2.0', id, error: { code, message, data: data ?? message } };
}
