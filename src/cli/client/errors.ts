// The client's one error type and its exit codes, documented in `mailcue --help` and docs/cli.md:
// scripts branch on the code, people read the one-line message and the hint.

export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  plan: 5,
  timeout: 124, // like timeout(1), so CI scripts can tell "no mail yet" from a failure
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0    success
  1    error (the server's error code and message are printed on stderr)
  2    usage error (unknown command, missing argument, bad option)
  3    not found (inbox, message, domain, webhook)
  4    authentication failed (no key, or an invalid one), or outside a scoped key's scope
  5    plan required (feature or credits not available on your plan)
  124  timed out waiting (mailcue wait, inbox create --wait-otp)`;

export const EXIT_CODES_SHORT = 'Exit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 auth, 5 plan, 124 timeout (mailcue --help).';

/** Failures that say "try again shortly", not "this will never work": a long wait rides them out. */
const TRANSIENT = new Set(['connection_failed', 'rate_limited', 'unavailable', 'deadline_exceeded', 'internal', 'http_502', 'http_503', 'http_504']);

export class CliError extends Error {
  /** Seconds the server asked us to wait (Retry-After), when it said. */
  retryAfterS: number | null = null;

  constructor(
    readonly code: string,
    message: string,
    readonly hint: string | null = null,
    readonly exitCode: number = exitCodeFor(code, 0),
    readonly body: Record<string, unknown> = {},
    /** Lines printed after the error and hint (e.g. the DNS records still needed). */
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }

  withDetails(details: readonly string[]): CliError {
    return new CliError(this.code, this.message, this.hint, this.exitCode, this.body, details);
  }

  get transient(): boolean {
    return TRANSIENT.has(this.code);
  }

  static fromServer(status: number, code: string, message: string, body: Record<string, unknown>, retryAfterS: number | null): CliError {
    const err = new CliError(code, message, hintFor(code, body, retryAfterS), exitCodeFor(code, status), body);
    err.retryAfterS = retryAfterS !== null && Number.isFinite(retryAfterS) ? retryAfterS : null;
    return err;
  }
}

function exitCodeFor(code: string, status: number): number {
  if (code === 'usage') return EXIT.usage;
  if (code === 'timeout') return EXIT.timeout;
  if (code === 'unauthorized' || code === 'scope_denied' || status === 401) return EXIT.auth;
  if (code === 'plan_required' || code === 'credits_exhausted' || status === 402) return EXIT.plan;
  if (status === 404) return EXIT.notFound;
  return EXIT.error;
}

function hintFor(code: string, body: Record<string, unknown>, retryAfterS: number | null): string | null {
  switch (code) {
    case 'unauthorized':
      return 'check MAILCUE_API_KEY or run mailcue login';
    case 'plan_required':
      return typeof body.upgrade_url === 'string' ? `upgrade to Growth or Enterprise: ${body.upgrade_url}` : 'this needs the Growth or Enterprise plan';
    case 'scope_denied':
      return 'this key is scoped: use the account API key, or a key whose scope covers this (mailcue keys list)';
    case 'credits_exhausted':
      return 'the monthly credits of your plan are used up; mailcue account shows your usage';
    case 'rate_limited':
    case 'session_limit':
      return retryAfterS !== null && Number.isFinite(retryAfterS) ? `retry in ${retryAfterS} s` : 'retry in a minute';
    case 'inbox_not_found':
      return 'mailcue inbox list shows your inboxes';
    case 'domain_not_verified':
      return 'use a service domain, or add and verify your own: mailcue domains add DOMAIN';
    case 'domain_not_found':
      return 'mailcue domains list shows your domains';
    case 'not_found':
      return 'mailcue webhooks list shows your webhooks';
    case 'verification_failed':
      return typeof body.hint === 'string' ? body.hint : 'publish the records below, then run verify again (DNS may take a while)';
    case 'inbox_not_owned':
      return 'the inbox must be one of yours: mailcue inbox create';
    case 'limit_reached':
      return 'your plan\'s limit is reached: delete what you no longer need (mailcue account shows usage and limits)';
    default:
      return null;
  }
}
