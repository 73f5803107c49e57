// One registry of every error Mailcue can answer: each code maps once to its HTTP status, its
// JSON-RPC code (agent-tool server) and its SMTP reply where one applies. Boundaries translate
// through this table and nowhere else.

export interface ErrorSpec {
  readonly http: number;
  /** JSON-RPC code for the agent-tool server; null means "a tool result with isError:true". */
  readonly jsonrpc: number | null;
  /** SMTP reply code, where the error can surface during an SMTP transaction. */
  readonly smtp?: number;
  /** Safe to retry the same request later. */
  readonly retryable: boolean;
}

export const ERRORS = {
  unauthorized: { http: 401, jsonrpc: -32002, retryable: false },
  plan_required: { http: 403, jsonrpc: -32001, retryable: false },
  rate_limited: { http: 429, jsonrpc: -32003, retryable: true },
  session_limit: { http: 429, jsonrpc: -32004, retryable: true },
  credits_exhausted: { http: 402, jsonrpc: -32005, retryable: false },
  invalid_parameter: { http: 400, jsonrpc: -32602, retryable: false },
  invalid_json: { http: 400, jsonrpc: -32700, retryable: false },
  invalid_address: { http: 400, jsonrpc: null, retryable: false },
  payload_too_large: { http: 413, jsonrpc: -32600, smtp: 552, retryable: false },
  not_found: { http: 404, jsonrpc: null, retryable: false },
  inbox_not_found: { http: 404, jsonrpc: null, smtp: 550, retryable: false },
  message_not_found: { http: 404, jsonrpc: null, retryable: false },
  attachment_not_found: { http: 404, jsonrpc: null, retryable: false },
  address_taken: { http: 409, jsonrpc: null, retryable: false },
  domain_not_verified: { http: 403, jsonrpc: null, retryable: false },
  invalid_domain: { http: 400, jsonrpc: null, retryable: false },
  limit_reached: { http: 400, jsonrpc: null, retryable: false },
  domain_not_found: { http: 404, jsonrpc: null, retryable: false },
  domain_taken: { http: 409, jsonrpc: null, retryable: false },
  verification_failed: { http: 422, jsonrpc: null, retryable: true },
  dns_lookup_failed: { http: 503, jsonrpc: null, retryable: true },
  invalid_url: { http: 400, jsonrpc: null, retryable: false },
  inbox_not_owned: { http: 403, jsonrpc: null, retryable: false },
  route_not_found: { http: 404, jsonrpc: -32601, retryable: false },
  method_not_allowed: { http: 405, jsonrpc: -32601, retryable: false },
  forbidden_origin: { http: 403, jsonrpc: -32000, retryable: false },
  invalid_grant: { http: 400, jsonrpc: null, retryable: false },
  /** A shard does not own the command's slot at the command's epoch; the front re-sends it. */
  moved: { http: 503, jsonrpc: -32603, smtp: 451, retryable: true },
  unavailable: { http: 503, jsonrpc: -32603, smtp: 451, retryable: true },
  deadline_exceeded: { http: 504, jsonrpc: -32603, smtp: 451, retryable: true },
  internal: { http: 500, jsonrpc: -32603, smtp: 451, retryable: true },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERRORS, code);
}

/** Extra fields that travel with an error into its response body (upgrade_url, hint, ...). */
export type ErrorDetails = Record<string, unknown>;

/** The one error type of Mailcue. Anything else reaching a boundary is a bug (internal). */
export class MailcueError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'MailcueError';
    this.code = code;
    this.details = details;
  }

  get spec(): ErrorSpec {
    return ERRORS[this.code];
  }
}

export function fail(code: ErrorCode, message: string, details?: ErrorDetails): never {
  throw new MailcueError(code, message, details);
}

/** Normalises anything thrown into a MailcueError; unknown errors become `internal`. */
export function asMailcueError(err: unknown): MailcueError {
  if (err instanceof MailcueError) return err;
  return new MailcueError('internal', 'Internal error');
}
