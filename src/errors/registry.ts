// One registry of every error Mailcue can answer: each code maps once to its HTTP status, its
// JSON-RPC code (agent-tool server) and its SMTP reply where one applies. Boundaries (REST,
// the agent-tool transports, the SMTP ingress) translate through this table and nowhere else.

export interface ErrorSpec {
  readonly http: number;
  /** JSON-RPC code for the agent-tool server; null means "a tool result with isError:true". */
  readonly jsonrpc: number | null;
  /** SMTP reply code and enhanced status (RFC 3463), where the error can end an SMTP command. */
  readonly smtp?: readonly [number, string];
  /** The RFC 6749 §5.2 `error` value on the OAuth endpoints, where it differs from the code. */
  readonly oauth?: string;
  /**
   * The HTTP status of the JSON-RPC error on the agent-tool transports, where it is not `http`: an
   * MCP protocol error that SDK clients must see as the JSON-RPC error, not as a failed POST.
   */
  readonly mcpHttp?: number;
}

const TEMPORARY = [451, '4.3.0'] as const;

export const ERRORS = {
  unauthorized: { http: 401, jsonrpc: -32002 },
  plan_required: { http: 403, jsonrpc: -32001 },
  rate_limited: { http: 429, jsonrpc: -32003 },
  session_limit: { http: 429, jsonrpc: -32004 },
  credits_exhausted: { http: 402, jsonrpc: -32005 },
  invalid_parameter: { http: 400, jsonrpc: -32602 },
  invalid_json: { http: 400, jsonrpc: -32700 },
  invalid_address: { http: 400, jsonrpc: null, smtp: [550, '5.1.1'] },
  payload_too_large: { http: 413, jsonrpc: -32600, smtp: [552, '5.3.4'] },
  not_found: { http: 404, jsonrpc: null },
  inbox_not_found: { http: 404, jsonrpc: null, smtp: [550, '5.1.1'] },
  message_not_found: { http: 404, jsonrpc: null },
  attachment_not_found: { http: 404, jsonrpc: null },
  address_taken: { http: 409, jsonrpc: null },
  /** A role address (RFC 2142, CA domain validation) on a service-owned domain (DESIGN §7). */
  address_reserved: { http: 403, jsonrpc: null },
  domain_not_verified: { http: 403, jsonrpc: null },
  invalid_domain: { http: 400, jsonrpc: null },
  limit_reached: { http: 400, jsonrpc: null },
  domain_not_found: { http: 404, jsonrpc: null },
  domain_taken: { http: 409, jsonrpc: null },
  verification_failed: { http: 422, jsonrpc: null },
  dns_lookup_failed: { http: 503, jsonrpc: null },
  invalid_url: { http: 400, jsonrpc: null },
  inbox_not_owned: { http: 403, jsonrpc: null },
  route_not_found: { http: 404, jsonrpc: null },
  invalid_grant: { http: 400, jsonrpc: null },
  /** A scoped key (or a token it granted) used outside its inboxes, or to write while read-only. */
  scope_denied: { http: 403, jsonrpc: null },
  // OAuth endpoints (RFC 6749 §5.2, RFC 7591 §3.2.2): answered as {error, error_description}.
  invalid_client: { http: 401, jsonrpc: null },
  /** /authorize: the client_id names no client; shown to the user, never redirected (RFC 6749 §4.1.2.1). */
  unknown_client: { http: 400, jsonrpc: null, oauth: 'invalid_client' },
  /** /authorize: a redirect_uri the client did not register; never redirected to. */
  redirect_not_allowed: { http: 400, jsonrpc: null, oauth: 'invalid_request' },
  unsupported_grant_type: { http: 400, jsonrpc: null },
  invalid_target: { http: 400, jsonrpc: null },
  invalid_redirect_uri: { http: 400, jsonrpc: null },
  invalid_client_metadata: { http: 400, jsonrpc: null },
  /** A Client ID Metadata Document that cannot be fetched or does not name its own URL. */
  client_metadata_unavailable: { http: 400, jsonrpc: null, oauth: 'invalid_client' },
  // The transports' own refusals (Streamable HTTP and HTTP+SSE, research/protocols.md §7).
  forbidden_origin: { http: 403, jsonrpc: -32000 },
  method_not_allowed: { http: 405, jsonrpc: -32000 },
  unsupported_media_type: { http: 415, jsonrpc: -32000 },
  unsupported_protocol_version: { http: 400, jsonrpc: -32000 },
  session_required: { http: 400, jsonrpc: -32000 },
  session_not_found: { http: 404, jsonrpc: -32000 },
  session_conflict: { http: 409, jsonrpc: -32000 },
  invalid_request: { http: 400, jsonrpc: -32600 },
  method_not_found: { http: 404, jsonrpc: -32601 },
  /** MCP's "Resource not found" (resources/read of an unknown URI), answered as a JSON-RPC error with HTTP 200. */
  resource_not_found: { http: 404, jsonrpc: -32002, mcpHttp: 200 },
  /** A peer whose certificate's role may not send the command (a front sending `slot.*`, src/rpc/roles.ts). */
  forbidden_caller: { http: 403, jsonrpc: -32603 },
  /** A shard does not own the command's slot at the command's epoch; the front re-sends it. */
  moved: { http: 503, jsonrpc: -32603, smtp: TEMPORARY },
  // SMTP ingress bounds (DESIGN §7); the HTTP status is only what a log or a test would show.
  too_many_recipients: { http: 400, jsonrpc: null, smtp: [452, '4.5.3'] },
  /** An inbox or account at its plan's storage limit (DESIGN §7): the sender keeps the mail and retries. */
  mailbox_full: { http: 507, jsonrpc: null, smtp: [452, '4.2.2'] },
  too_many_connections: { http: 429, jsonrpc: null, smtp: [421, '4.7.0'] },
  ingress_busy: { http: 503, jsonrpc: null, smtp: [451, '4.3.2'] },
  unavailable: { http: 503, jsonrpc: -32603, smtp: TEMPORARY },
  deadline_exceeded: { http: 504, jsonrpc: -32603, smtp: TEMPORARY },
  internal: { http: 500, jsonrpc: -32603, smtp: TEMPORARY },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export function errorSpec(code: ErrorCode): ErrorSpec {
  return ERRORS[code];
}

/** The `error` value an OAuth endpoint answers for a code. */
export function oauthErrorName(code: ErrorCode): string {
  const spec: ErrorSpec = ERRORS[code];
  return spec.oauth ?? code;
}

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
    return errorSpec(this.code);
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
