// JSON-RPC 2.0 for the agent-tool server: message shapes, validation of what arrives, and the one
// mapping from Mailcue errors to JSON-RPC errors and their HTTP statuses (SEED.md "Errors").
import { ERRORS, MailcueError, asMailcueError, type ErrorCode } from '../../errors/registry.js';

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

/** An error answered as a JSON-RPC error, with the HTTP status of its transport answer. */
export class JsonRpcFailure extends Error {
  constructor(readonly http: number, readonly error: JsonRpcError, readonly headers: [string, string][] = []) {
    super(error.message);
  }
}

export const invalidRequest = (details: string) => new JsonRpcFailure(400, { code: -32600, message: 'Invalid Request', data: details });
export const parseError = () => new JsonRpcFailure(400, { code: -32700, message: 'Parse error', data: 'The body is not valid JSON' });
export const methodNotFound = (data: string) => new JsonRpcFailure(404, { code: -32601, message: 'Method not found', data });
export const invalidParams = (data: string) => new JsonRpcFailure(400, { code: -32602, message: 'Invalid params', data });

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

/** SEED.md's messages and data for the codes it lists; DESIGN §4's for the rest. */
const JSONRPC_TEXT: Partial<Record<ErrorCode, (e: MailcueError) => { message: string; data: unknown }>> = {
  plan_required: (e) => ({ message: e.message, data: 'Plan upgrade required' }),
  unauthorized: () => ({ message: 'Invalid API key', data: 'Authentication failed' }),
  invalid_parameter: (e) => ({ message: 'Invalid params', data: e.message }),
  rate_limited: (e) => ({ message: e.message, data: `Retry after ${e.details?.retry_after_s ?? 60} seconds` }),
  session_limit: (e) => ({ message: e.message, data: 'Close an open session (DELETE /mcp) or wait for one to idle out' }),
  credits_exhausted: (e) => ({ message: e.message, data: 'Credits reset on the first day of the next UTC month' }),
  internal: () => ({ message: 'Internal error', data: 'See the server log' }),
  forbidden_origin: (e) => ({ message: e.message, data: e.message }),
};

/** Maps a thrown error to a JSON-RPC failure; null means "answer it as a tool result with isError". */
export function toJsonRpcFailure(thrown: unknown): JsonRpcFailure | null {
  if (thrown instanceof JsonRpcFailure) return thrown;
  const err = asMailcueError(thrown);
  const spec = ERRORS[err.code];
  if (spec.jsonrpc === null) return null;
  const text = JSONRPC_TEXT[err.code]?.(err) ?? { message: err.message, data: err.code };
  const headers: [string, string][] = [];
  if (typeof err.details?.retry_after_s === 'number') headers.push(['Retry-After', String(err.details.retry_after_s)]);
  return new JsonRpcFailure(spec.http, { code: spec.jsonrpc, message: text.message, data: text.data }, headers);
}

/** SEED.md's error object always carries `data` (a string); transport errors reuse the message. */
export function errorResponse(id: JsonRpcId, failure: JsonRpcFailure): JsonRpcResponse {
  const { code, message, data } = failure.error;
  return { jsonrpc: '2.0', id, error: { code, message, data: data ?? message } };
}
