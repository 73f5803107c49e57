// One delivery attempt: an HTTPS POST that resolves the host through the configured resolvers,
// refuses private targets at connect time, never follows redirects, reads at most a little of the
// answer, and gives up after the per-attempt timeout.
import type { Agent, Dispatcher } from 'undici';
import type { Config } from '../config/config.js';
import { publicOnlyAgent, refusedLiteral } from '../security/outbound-agent.js';
import { makeResolver } from './resolver.js';

const MAX_ANSWER_BYTES = 64 * 1024;

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  latency_ms: number;
  error: string | null;
}

export class HttpsSender {
  private readonly agent: Agent;

  constructor(private readonly config: Config) {
    // undici rather than node:https: 30-56 µs of client CPU per keep-alive POST on this machine
    // against 100-137 µs.
    this.agent = publicOnlyAgent(config, makeResolver(config.dnsServers), 64);
  }

  post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const target = new URL(url);
    const refused = refusedLiteral(this.config, target);
    if (refused) return Promise.resolve(attemptResult(started, null, refused));
    const timeoutMs = this.config.webhookTimeoutMs;
    return new Promise((resolve) => {
      this.agent.dispatch(
        {
          origin: target.origin, path: target.pathname + target.search, method: 'POST', body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
          headers: Object.assign({}, headers, { 'user-agent': 'Mailcue-Webhooks/1' }),
        },
        new Attempt(started, timeoutMs, resolve),
      );
    });
  }

  close(): void {
    void this.agent.destroy();
  }
}

function attemptResult(started: number, status: number | null, error: string | null): AttemptResult {
  return { ok: status !== null && status >= 200 && status < 300, status, latency_ms: Math.round(performance.now() - started), error };
}

function abortAtDeadline(attempt: Attempt): void {
  attempt.timeOut();
}

/**
 * One POST as undici's dispatcher sees it: the status is all a delivery needs, so the answer's
 * bytes are counted and dropped, and an answer past MAX_ANSWER_BYTES closes the connection. Driven
 * by these callbacks rather than by `request()` and a body stream to dump: 24 against 38 µs of
 * client CPU per keep-alive POST to a loopback HTTPS receiver (64 in flight).
 */
class Attempt implements Dispatcher.DispatchHandler {
  private status: number | null = null;
  private answerBytes = 0;
  private abort: ((reason?: Error) => void) | null = null;
  private timedOut = false;
  private settled = false;
  // The whole attempt, answer included, ends at the timeout: a receiver dripping its answer byte by
  // byte would never trip an idle timeout.
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly started: number, private readonly timeoutMs: number, private readonly resolve: (r: AttemptResult) => void) {
    this.timer = setTimeout(abortAtDeadline, timeoutMs, this);
  }

  timeOut(): void {
    this.timedOut = true;
    this.abort?.(new Error('deadline'));
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abort = abort;
    if (this.timedOut) abort(new Error('deadline'));
  }

  onHeaders(statusCode: number): boolean {
    this.status = statusCode;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.answerBytes += chunk.length;
    if (this.answerBytes > MAX_ANSWER_BYTES) {
      this.settle(this.status, null);
      this.abort?.(new Error('answer too large'));
    }
    return true;
  }

  onComplete(): void {
    this.settle(this.status, null);
  }

  onError(err: Error): void {
    const timedOut = this.timedOut || (err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT' || (err as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT';
    this.settle(null, timedOut ? `timed out after ${this.timeoutMs} ms` : err.message);
  }

  private settle(status: number | null, error: string | null): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    const answered = status !== null && error === null;
    this.resolve(attemptResult(this.started, status, answered && (status < 200 || status >= 300) ? `HTTP ${status}` : error));
  }
}
