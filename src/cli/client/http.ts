// The command-line client's only way to the service: REST over fetch (DESIGN §3). Every failure
// becomes a CliError carrying the server's error code, so exit codes and hints are decided once.
import { CliError } from './errors.js';

export type Json = Record<string, unknown>;

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | null | undefined>;
  signal?: AbortSignal;
}

export interface Download {
  bytes: Buffer;
  contentType: string;
  filename: string | null;
}

/** What `--json` prints: the answer's `data`, or for answers without one (deletes, webhook
 * add) the body as the API sent it, minus `success`. */
export function payload(body: Json): unknown {
  if ('data' in body) return body.data;
  const { success: _success, ...rest } = body;
  return rest;
}

/** Path segments are user input (addresses, ids): always encoded, never concatenated raw. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

export class Api {
  constructor(readonly baseUrl: string, private readonly apiKey: string | undefined) {}

  /** A JSON request; resolves with the whole success body (`{success:true, ...}`). */
  async call(method: string, path: string, options: RequestOptions = {}): Promise<Json> {
    const res = await this.send(method, path, options, 'application/json');
    const body = await this.readJson(res);
    if (!res.ok || body.success === false) throw this.failure(res, body);
    return body;
  }

  /** A binary download (raw message, attachment). Errors still arrive as JSON. */
  async download(path: string, options: RequestOptions = {}): Promise<Download> {
    const res = await this.send('GET', path, options, '*/*');
    if (!res.ok) throw this.failure(res, await this.readJson(res));
    const disposition = res.headers.get('content-disposition') ?? '';
    const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
    return {
      bytes: Buffer.from(await res.arrayBuffer()),
      contentType: res.headers.get('content-type') ?? 'application/octet-stream',
      filename: star ? decodeURIComponent(star[1]!) : null,
    };
  }

  private async send(method: string, path: string, options: RequestOptions, accept: string): Promise<Response> {
    if (!this.apiKey) {
      throw new CliError('unauthorized', 'no API key configured', 'pass --api-key, set MAILCUE_API_KEY or run mailcue login');
    }
    // Appended, not resolved: a service behind a path prefix (https://host/mailcue) keeps it.
    const url = new URL(`${this.baseUrl.replace(/\/+$/, '')}${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept, 'user-agent': 'mailcue-cli' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
      });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError('connection_failed', `cannot reach ${this.baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
        'is the service running there? set --url or MAILCUE_URL');
    }
  }

  private async readJson(res: Response): Promise<Json> {
    const text = await res.text();
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Json;
    } catch {
      /* not JSON: reported below */
    }
    if (res.ok) throw new CliError('bad_response', `unexpected answer from ${this.baseUrl} (HTTP ${res.status}, not JSON)`, 'is --url a Mailcue service?');
    return { success: false, error: `http_${res.status}`, message: text.slice(0, 200) || res.statusText };
  }

  private failure(res: Response, body: Json): CliError {
    const code = typeof body.error === 'string' ? body.error : `http_${res.status}`;
    const message = typeof body.message === 'string' ? body.message : res.statusText;
    const retryAfter = res.headers.get('retry-after');
    return CliError.fromServer(res.status, code, message, body, retryAfter === null ? null : Number(retryAfter));
  }
}
