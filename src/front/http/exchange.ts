// One HTTP request and its response on uWebSockets.js, with the library's rules kept in one place:
// read the request synchronously, register onAborted first, cork every write made after an await,
// never touch a response that ended or aborted.
import { STATUS_CODES } from 'node:http';
import { MailcueError } from '../../errors/registry.js';
import { Cancellation, type CancelSignal } from '../../util/cancel.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import type { HttpRequest, HttpResponse } from './uws.js';

/** The body limit of a route that declares none: REST's JSON bodies. */
export const DEFAULT_BODY_MAX_BYTES = 1024 * 1024;

const STATUS_LINES = new Map<number, string>();
const statusLine = (status: number): string => {
  let line = STATUS_LINES.get(status);
  if (!line) STATUS_LINES.set(status, (line = `${status} ${STATUS_CODES[status] ?? ''}`));
  return line;
};

const READ_HEADERS = [
  'authorization', 'content-type', 'content-length', 'transfer-encoding', 'accept', 'origin',
  'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'accept-encoding', 'if-none-match',
] as const;
type ReadHeader = (typeof READ_HEADERS)[number];

/** What every exchange reports to its router: errors to map into an answer, and each end for metrics. */
export interface ExchangeHooks {
  onError(ex: Exchange, err: unknown): void;
  /** Once per request, when it is answered, ends its stream, or the client hangs up (status 0). */
  observe?(ex: Exchange, seconds: number): void;
}

/** A path segment, percent-decoded; malformed encoding is kept as sent (it then names nothing). */
function decodePathParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** What the handlers read of a request; a parked long-poll drops it (Exchange.releaseRequest). */
interface RequestData {
  readonly path: string;
  readonly rawQuery: string;
  readonly params: readonly string[];
  /** Values of READ_HEADERS by position ('' when absent): a flat array is the smallest holder. */
  readonly headers: readonly string[];
}

const RELEASED: RequestData = { path: '', rawQuery: '', params: [], headers: [] };

/** One string per method name, so a parked request does not keep its own copy. */
const METHOD_NAMES = new Map(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'].map((m) => [m, m]));

export class Exchange {
  readonly method: string;
  private request: RequestData;
  private extraHeaders: [string, string][] | null = null;
  /** Made only when someone listens (long-polls); most requests never need one. */
  private cancellation: Cancellation | null = null;
  private aborted = false;
  private finished = false;
  private streaming = false;
  private bodyPromise: Promise<Buffer> | null = null;
  /** Set by the router: the route pattern, for metrics without unbounded label values. */
  route = '';
  status = 0;
  private readonly started: number;

  /** `bodyLimit`: the most this route reads, declared once where the route is added. */
  constructor(readonly res: HttpResponse, req: HttpRequest, paramCount: number, private readonly hooks: ExchangeHooks, private readonly bodyLimit = DEFAULT_BODY_MAX_BYTES) {
    this.started = hooks.observe ? performance.now() : 0;
    const method = req.getCaseSensitiveMethod().toUpperCase();
    this.method = METHOD_NAMES.get(method) ?? method;
    const params = new Array<string>(paramCount);
    for (let i = 0; i < paramCount; i++) params[i] = decodePathParam(req.getParameter(i) ?? '');
    // Only the headers Mailcue reads are kept: a parked long-poll should not hold the rest.
    const headers = new Array<string>(READ_HEADERS.length);
    for (let i = 0; i < READ_HEADERS.length; i++) headers[i] = req.getHeader(READ_HEADERS[i]!);
    this.request = { path: req.getUrl(), rawQuery: req.getQuery() ?? '', params, headers };
    // A bound method rather than an arrow: an arrow's context would keep `req` (and itself) for as
    // long as the request is open, 100 B more per parked long-poll.
    res.onAborted(this.onAborted.bind(this));
  }

  private onAborted(): void {
    this.aborted = true;
    this.finish();
    this.cancellation?.abort();
  }

  /** Marks the response ended (it must not be touched again) and observes it, once. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.hooks.observe?.(this, (performance.now() - this.started) / 1000);
  }

  /** Answers with the error, mapped by the router's hooks (nothing if the response has ended). */
  fail(err: unknown): void {
    this.hooks.onError(this, err);
  }

  get path(): string {
    return this.request.path;
  }

  /** The route's path parameters, percent-decoded. */
  get params(): readonly string[] {
    return this.request.params;
  }

  /** Query parameters, parsed on each call and not kept: a parked long-poll should not hold them. */
  get query(): URLSearchParams {
    return new URLSearchParams(this.request.rawQuery);
  }

  /**
   * The handler has read all it needs from the request and parks: the path, query, headers and
   * body are dropped (they then read as empty), so what waits is the response and little else.
   */
  releaseRequest(): void {
    this.request = RELEASED;
    this.bodyPromise = null;
  }

  /** The client's IP address as text; read it before the first await (uWS rule). */
  get remoteAddress(): string {
    return this.finished ? '' : Buffer.from(this.res.getRemoteAddressAsText()).toString('latin1');
  }

  /**
   * RateLimit-* values, written as headers when the answer goes out (limit -1: none). Three small
   * integers in the Exchange, not an object beside it: a parked long-poll keeps them (48 B less).
   */
  private rateLimitLimit = -1;
  private rateLimitRemaining = 0;
  private rateLimitReset = 0;

  setRateLimit(limit: number, remaining: number, reset: number): void {
    this.rateLimitLimit = limit;
    this.rateLimitRemaining = remaining;
    this.rateLimitReset = reset;
  }

  /** Aborted when the client hangs up: long-polls hand it to the shard to free their waiter. */
  get signal(): CancelSignal {
    this.cancellation ??= new Cancellation();
    if (this.aborted) this.cancellation.abort();
    return this.cancellation;
  }

  get closed(): boolean {
    return this.finished;
  }

  header(name: ReadHeader): string | undefined {
    const value = this.request.headers[READ_HEADERS.indexOf(name)];
    return value === '' ? undefined : value;
  }

  setHeader(name: string, value: string): this {
    (this.extraHeaders ??= []).push([name, value]);
    return this;
  }

  /** Reads the whole body (once; later calls share it), refusing more than the route's limit. */
  body(): Promise<Buffer> {
    if (this.bodyPromise) return this.bodyPromise;
    const limit = this.bodyLimit;
    const declared = Number(this.header('content-length') ?? '0');
    if (!(declared > 0) && this.header('transfer-encoding') === undefined) {
      this.bodyPromise = Promise.resolve(Buffer.alloc(0));
      return this.bodyPromise;
    }
    this.bodyPromise = new Promise<Buffer>((resolve, reject) => {
      if (declared > limit) {
        reject(new MailcueError('payload_too_large', `Request body exceeds ${limit} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      this.res.onData((chunk, isLast) => {
        if (size > limit) return;
        size += chunk.byteLength;
        if (size > limit) {
          reject(new MailcueError('payload_too_large', `Request body exceeds ${limit} bytes`));
          return;
        }
        // uWS reuses the chunk's memory after this callback, so it is copied once; a body of one
        // chunk (most are) is not copied a second time by concat. Copied into a Buffer (small ones
        // share Node's pool) rather than into an ArrayBuffer of its own: 0.11 against 0.8-1.0 µs
        // for a 220-byte body. A parked request drops its body (releaseRequest), so no pooled slab
        // is held by a long-poll.
        chunks.push(Buffer.from(new Uint8Array(chunk)));
        if (isLast) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      });
    });
    return this.bodyPromise;
  }

  async json(): Promise<unknown> {
    const raw = await this.body();
    if (raw.length === 0) return undefined;
    const text = raw.toString('utf8');
    if (nestsDeeperThan(text)) throw new MailcueError('invalid_json', `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    try {
      return JSON.parse(text);
    } catch {
      throw new MailcueError('invalid_json', 'The request body is not valid JSON');
    }
  }

  /** The body as a JSON object; an absent body is `{}`. */
  async jsonObject(): Promise<Record<string, unknown>> {
    const value = await this.json();
    if (value === undefined) return {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new MailcueError('invalid_json', 'The request body must be a JSON object');
    }
    return value as Record<string, unknown>;
  }

  send(status: number, body: string | Uint8Array, contentType: string | null, headers: [string, string][] = []): void {
    if (this.finished) return;
    this.status = status;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      if (contentType) this.res.writeHeader('Content-Type', contentType);
      this.writeExtraHeaders();
      for (const [k, v] of headers) this.res.writeHeader(k, v);
      this.res.end(body);
    });
    this.finish();
  }

  sendJson(status: number, value: unknown, headers: [string, string][] = []): void {
    this.sendJsonText(status, JSON.stringify(value), headers);
  }

  /** A body that is JSON text already. */
  sendJsonText(status: number, json: string, headers: [string, string][] = []): void {
    this.send(status, json, 'application/json; charset=utf-8', headers);
  }

  /** Starts a streamed (chunked) response such as an SSE stream; write() then sends chunks. */
  startStream(status: number, headers: [string, string][]): void {
    if (this.finished || this.streaming) return;
    this.streaming = true;
    this.status = status;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      this.writeExtraHeaders();
      for (const [k, v] of headers) this.res.writeHeader(k, v);
      // An empty write queues the head; uWS sends it with the first bytes of the body (a stream
      // with nothing to say yet writes a comment: SseStream.open).
      this.res.write('');
    });
    // Written once with the head: a long-lived stream need not keep them.
    this.extraHeaders = null;
  }

  private writeExtraHeaders(): void {
    if (this.rateLimitLimit >= 0) {
      this.res.writeHeader('RateLimit-Limit', String(this.rateLimitLimit));
      this.res.writeHeader('RateLimit-Remaining', String(this.rateLimitRemaining));
      this.res.writeHeader('RateLimit-Reset', String(this.rateLimitReset));
    }
    if (this.extraHeaders) for (const [k, v] of this.extraHeaders) this.res.writeHeader(k, v);
  }

  write(chunk: string): boolean {
    if (this.finished) return false;
    let ok = false;
    this.res.cork(() => {
      ok = this.res.write(chunk);
    });
    return ok;
  }

  end(chunk = ''): void {
    if (this.finished) return;
    this.res.cork(() => this.res.end(chunk));
    this.finish();
  }

  /** Closes the connection without a response (used only when a stream must be cut). */
  close(): void {
    if (this.finished) return;
    this.res.close();
    this.finish();
  }

  get isStreaming(): boolean {
    return this.streaming;
  }
}
