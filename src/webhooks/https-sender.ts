// One delivery attempt: an HTTPS POST that resolves the host through the configured resolvers,
// refuses private targets at connect time, never follows redirects, reads at most a little of the
// answer, and gives up after the per-attempt timeout.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { LookupFunction } from 'node:net';
import type { Config } from '../config/config.js';
import { isIP } from 'node:net';
import { isRefusedAddress, resolveTarget } from './address-policy.js';
import { makeResolver } from './resolver.js';

const MAX_ANSWER_BYTES = 64 * 1024;

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  latency_ms: number;
  error: string | null;
}

export class HttpsSender {
  private readonly agent: https.Agent;

  constructor(private readonly config: Config) {
    const resolver = makeResolver(config.dnsServers);
    const lookup: LookupFunction = (hostname, _options, callback) => {
      resolveTarget(resolver, hostname, config.webhookAllowPrivate).then(
        (t) => (callback as (e: Error | null, a: string, f: number) => void)(null, t.address, t.family),
        (err: Error) => (callback as (e: Error | null, a: string, f: number) => void)(err, '', 4),
      );
    };
    // One secure context, built once: passing `ca` to the agent would make Node stringify the whole
    // CA list into the agent's connection key on every request and re-parse it per connection.
    const secureContext = config.webhookCaFile
      ? createSecureContext({ ca: [...rootCertificates, readFileSync(config.webhookCaFile, 'utf8')] })
      : undefined;
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 64, lookup, secureContext });
  }

  post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const done = (status: number | null, error: string | null): AttemptResult => ({
      ok: status !== null && status >= 200 && status < 300, status, latency_ms: Math.round(performance.now() - started), error,
    });
    // Node connects to an address literal without calling `lookup`: check it here instead.
    const literal = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (!this.config.webhookAllowPrivate && isIP(literal) && isRefusedAddress(literal)) {
      return Promise.resolve(done(null, `${literal} is not a public address`));
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (r: AttemptResult) => {
        if (!settled) {
          settled = true;
          resolve(r);
        }
      };
      const req = https.request(url, {
        method: 'POST', agent: this.agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Mailcue-Webhooks/1' },
        timeout: this.config.webhookTimeoutMs,
      }, (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // A huge answer is not read: the status is all a delivery needs.
          if (read > MAX_ANSWER_BYTES) {
            res.destroy();
            finish(done(status, null));
          }
        });
        res.on('end', () => finish(done(status, status >= 200 && status < 300 ? null : `HTTP ${status}`)));
        res.on('error', () => finish(done(status, null)));
        res.on('close', () => finish(done(status, status >= 200 && status < 300 ? null : `HTTP ${status}`)));
      });
      const hardStop = setTimeout(() => req.destroy(new Error(`timed out after ${this.config.webhookTimeoutMs} ms`)), this.config.webhookTimeoutMs);
      req.on('timeout', () => req.destroy(new Error(`timed out after ${this.config.webhookTimeoutMs} ms`)));
      req.on('error', (err) => finish(done(null, err.message)));
      req.on('close', () => clearTimeout(hardStop));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
