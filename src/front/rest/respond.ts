// REST answers in SEED.md's shape: `{success: true, ...}` or `{success: false, error, message}`
// plus the documented extra fields. Errors are mapped to HTTP here and nowhere else.
import { asMailcueError, MailcueError } from '../../errors/registry.js';
import type { Logger } from '../../obs/logger.js';
import type { Exchange } from '../http/exchange.js';

/** Detail fields that travel as headers, not in the body. */
const HEADER_ONLY = new Set(['retry_after_s', 'limit', 'remaining', 'reset_s', 'plan', 'upgrade']);

export function ok(ex: Exchange, status: number, body: Record<string, unknown>): void {
  ex.sendJson(status, { success: true, ...body });
}

/**
 * ok() for a body whose fields are the text of a non-empty JSON object already (built on a shard):
 * spliced after `success` rather than parsed and encoded again on the front's event loop.
 */
export function okJsonFields(ex: Exchange, status: number, objectJson: string): void {
  ex.sendJsonText(status, `{"success":true,${objectJson.slice(1)}`);
}

export function restErrorBody(err: MailcueError): Record<string, unknown> {
  const body: Record<string, unknown> = { success: false, error: err.code, message: err.message };
  for (const [k, v] of Object.entries(err.details ?? {})) if (!HEADER_ONLY.has(k)) body[k] = v;
  return body;
}

export function sendRestError(ex: Exchange, thrown: unknown, log: Logger): void {
  if (ex.closed) return;
  const err = asMailcueError(thrown);
  if (!(thrown instanceof MailcueError)) log.error({ err: thrown, route: ex.route }, 'unhandled error');
  const headers: [string, string][] = [];
  if (err.code === 'unauthorized') headers.push(['WWW-Authenticate', 'Bearer']);
  const d = err.details ?? {};
  if (typeof d.retry_after_s === 'number') {
    headers.push(['Retry-After', String(d.retry_after_s)]);
    // A per-minute limit (not the session cap, whose `limit` counts sessions).
    if (typeof d.limit === 'number' && typeof d.reset_s === 'number') {
      headers.push(['RateLimit-Limit', String(d.limit)], ['RateLimit-Remaining', '0'], ['RateLimit-Reset', String(d.reset_s)]);
    }
  } else if (err.spec.http === 503) {
    // A shard restarting or a slot changing owner: worth retrying in a second.
    headers.push(['Retry-After', '1']);
  }
  ex.sendJson(err.spec.http, restErrorBody(err), headers);
}
