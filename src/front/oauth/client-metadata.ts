// OAuth Client ID Metadata Documents (MCP 2025-11-25 "Client ID Metadata Documents",
// draft-ietf-oauth-client-id-metadata-document): a client_id that is an https URL names a JSON
// document the client publishes there. It is fetched through the same public-only connector as
// webhooks (src/security/outbound-agent.ts: private addresses refused at connect time), with a
// bounded size and time, no redirects, and cached as its Cache-Control / Expires headers allow.
import type { Dispatcher } from 'undici';
import type { Config } from '../../config/config.js';
import { fail } from '../../errors/registry.js';
import { publicOnlyAgent, refusedLiteral } from '../../security/outbound-agent.js';
import { makeResolver } from '../../webhooks/resolver.js';

/** The spec's advice: documents are small; a server should not read more than a few kilobytes. */
export const METADATA_MAX_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
/** However long the headers allow, a document is fetched again at least daily. */
const CACHE_MAX_S = 24 * 3600;
const CACHE_ENTRIES = 1_000;
/** Shared-secret methods make no sense for a document anyone can read (the spec forbids them). */
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

export interface ClientMetadata {
  client_id: string;
  client_name: string | null;
  client_uri: string | null;
  redirect_uris: string[];
}

/** Whether a client_id is meant as a metadata-document URL (an https URL). */
export function isMetadataUrl(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/** The URL rules of the spec: https, a path, no fragment, no credentials, no dot segments. */
export function metadataUrl(clientId: string): URL {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    fail('unknown_client', 'client_id is not a valid URL');
  }
  const segments = clientId.replace(/^https:\/\/[^/]*/, '').split(/[?#]/)[0]!.split('/');
  if (url.protocol !== 'https:' || url.pathname === '/' || url.hash || clientId.includes('#') || url.username || url.password
    || segments.some((s) => s === '.' || s === '..')) {
    fail('unknown_client', 'A URL client_id must be an https URL with a path, without fragment, credentials or dot segments');
  }
  return url;
}

function text(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : null;
}

/** Checks a fetched document against the URL it came from. */
export function parseMetadata(clientId: string, body: string): ClientMetadata {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(body) as Record<string, unknown>;
  } catch {
    fail('client_metadata_unavailable', 'The client metadata document is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail('client_metadata_unavailable', 'The client metadata document is not a JSON object');
  if (doc.client_id !== clientId) fail('client_metadata_unavailable', 'The client metadata document must name its own URL as client_id');
  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.some((u) => typeof u !== 'string')) {
    fail('client_metadata_unavailable', 'The client metadata document must list its redirect_uris');
  }
  const method = doc.token_endpoint_auth_method;
  if ((typeof method === 'string' && SECRET_METHODS.has(method)) || doc.client_secret !== undefined) {
    fail('client_metadata_unavailable', 'A client metadata document cannot use a shared client secret');
  }
  return { client_id: clientId, client_name: text(doc.client_name, 200), client_uri: text(doc.client_uri, 2000), redirect_uris: uris as string[] };
}

/** Seconds a response may be reused per RFC 9111 (max-age, else Expires); 0 for no-store, no-cache or neither. */
export function freshSeconds(cacheControl: string | null, expires: string | null, now = Date.now()): number {
  const cc = (cacheControl ?? '').toLowerCase();
  if (/(^|,)\s*(no-store|no-cache|private)\b/.test(cc)) return 0;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(cc);
  if (maxAge) return Math.min(CACHE_MAX_S, Number(maxAge[1]));
  const at = expires ? Date.parse(expires) : NaN;
  return Number.isFinite(at) ? Math.max(0, Math.min(CACHE_MAX_S, Math.floor((at - now) / 1000))) : 0;
}

interface Cached {
  until: number;
  metadata: ClientMetadata;
}

export class ClientMetadataFetcher {
  private readonly agent: Dispatcher;
  private readonly cache = new Map<string, Cached>();
  /** Documents fetched (not served from the cache): a metric and what tests count. */
  fetches = 0;

  constructor(private readonly config: Config, private readonly now: () => number = Date.now) {
    this.agent = publicOnlyAgent(config, makeResolver(config.dnsServers), 16);
  }

  /** The client's metadata, from the cache while fresh, else fetched; fails `client_metadata_unavailable`. */
  async get(clientId: string): Promise<ClientMetadata> {
    const url = metadataUrl(clientId);
    const hit = this.cache.get(clientId);
    if (hit && hit.until > this.now()) return hit.metadata;
    this.cache.delete(clientId);
    const refused = refusedLiteral(this.config, url);
    if (refused) fail('client_metadata_unavailable', `The client metadata document cannot be fetched: ${refused}`);
    const { body, fresh } = await this.fetch(url);
    const metadata = parseMetadata(clientId, body);
    if (fresh > 0) {
      if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(clientId, { until: this.now() + fresh * 1000, metadata });
    }
    return metadata;
  }

  private async fetch(url: URL): Promise<{ body: string; fresh: number }> {
    this.fetches++;
    const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
    let res: Dispatcher.ResponseData;
    try {
      res = await this.agent.request({
        origin: url.origin, path: url.pathname + url.search, method: 'GET', signal,
        headers: { accept: 'application/json', 'user-agent': 'Mailcue-OAuth/1' },
        headersTimeout: FETCH_TIMEOUT_MS, bodyTimeout: FETCH_TIMEOUT_MS,
      });
    } catch (err) {
      fail('client_metadata_unavailable', `The client metadata document cannot be fetched: ${(err as Error).message}`);
    }
    // A destroyed body emits its error later: it must have a listener, or the process dies.
    res.body.on('error', () => undefined);
    if (res.statusCode !== 200) {
      res.body.destroy();
      fail('client_metadata_unavailable', `The client metadata document answered HTTP ${res.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > METADATA_MAX_BYTES) {
          res.body.destroy();
          fail('client_metadata_unavailable', `The client metadata document is larger than ${METADATA_MAX_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      if ((err as { code?: string }).code === 'client_metadata_unavailable') throw err;
      fail('client_metadata_unavailable', `The client metadata document cannot be read: ${(err as Error).message}`);
    }
    const header = (name: string) => {
      const v = res.headers[name];
      return Array.isArray(v) ? v.join(', ') : (v ?? null);
    };
    return { body: Buffer.concat(chunks).toString('utf8'), fresh: freshSeconds(header('cache-control'), header('expires'), this.now()) };
  }

  close(): void {
    void this.agent.destroy();
  }
}
