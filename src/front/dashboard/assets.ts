// The dashboard's files as the server sends them, prepared once at start from what `npm run build`
// put beside this module: the compiled browser modules (app/) and static/ (index.html, app.css).
// Modules and the stylesheet are renamed by content hash and served immutable; a module's name
// hashes its rewritten imports too, so a change anywhere renames every module that reaches it.
// index.html names the hashed files and is revalidated by ETag. Bodies are compressed once.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * One file as served. Its compressed forms are made once, on first request, and kept: brotli at
 * its best setting costs a few hundred milliseconds of CPU for the whole dashboard, which a
 * process that never serves the page (a test, an API-only front) should not pay at start.
 */
export class Asset {
  readonly etag: string;
  private brotli: Buffer | null = null;
  private gzipped: Buffer | null = null;

  constructor(readonly type: string, readonly identity: Buffer) {
    this.etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`;
  }

  get br(): Buffer {
    return (this.brotli ??= brotliCompressSync(this.identity, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: this.identity.length },
    }));
  }

  get gzip(): Buffer {
    return (this.gzipped ??= gzipSync(this.identity, { level: 9 }));
  }
}

/** What the page needs to know about this server (meta tags of index.html). */
export interface PageFacts {
  mcpUrl: string;
  smtpPort: number;
  domains: readonly string[];
}

export const ASSET_PREFIX = '/dashboard/assets/';
const APP_DIR = new URL('./app/', import.meta.url);
const STATIC_DIR = new URL('./static/', import.meta.url);
const IMPORT = /((?:from|import)\s*\(?\s*)(['"])\.\/([\w-]+)\.js\2/g;

const hash8 = (body: string): string => createHash('sha256').update(body).digest('hex').slice(0, 10);

const escapeAttr = (v: string): string => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class DashboardAssets {
  /** By hashed file name under ASSET_PREFIX. */
  readonly files = new Map<string, Asset>();
  /** Logical name ("main.js", "app.css") → hashed file name. */
  private readonly names = new Map<string, string>();
  private indexTemplate: string;
  private index: Asset | null = null;

  constructor(private readonly facts: () => PageFacts) {
    const sources = new Map<string, string>();
    for (const f of readdirSync(APP_DIR)) if (f.endsWith('.js')) sources.set(f.slice(0, -3), readFileSync(new URL(f, APP_DIR), 'utf8'));
    const resolving = new Set<string>();
    const resolve = (module: string): string => {
      const known = this.names.get(`${module}.js`);
      if (known) return known;
      const source = sources.get(module);
      if (source === undefined) throw new Error(`dashboard: module ./${module}.js is imported but was not built`);
      if (resolving.has(module)) throw new Error(`dashboard: import cycle through ./${module}.js`);
      resolving.add(module);
      const body = source.replace(IMPORT, (_m, head: string, q: string, dep: string) => `${head}${q}./${resolve(dep)}${q}`);
      resolving.delete(module);
      const name = `${module}.${hash8(body)}.js`;
      this.names.set(`${module}.js`, name);
      this.files.set(name, new Asset('text/javascript; charset=utf-8', Buffer.from(body)));
      return name;
    };
    for (const module of sources.keys()) resolve(module);
    const css = readFileSync(new URL('app.css', STATIC_DIR), 'utf8');
    const cssName = `app.${hash8(css)}.css`;
    this.names.set('app.css', cssName);
    this.files.set(cssName, new Asset('text/css; charset=utf-8', Buffer.from(css)));

    const preload = [...this.names.entries()]
      .filter(([logical]) => logical.endsWith('.js') && logical !== 'main.js')
      .map(([, hashed]) => `<link rel="modulepreload" href="${ASSET_PREFIX}${hashed}">`)
      .join('\n');
    this.indexTemplate = readFileSync(new URL('index.html', STATIC_DIR), 'utf8')
      .replace(/\/dashboard\/assets\/([\w-]+\.(?:js|css))/g, (whole, logical: string) => {
        const hashed = this.names.get(logical);
        if (!hashed) throw new Error(`dashboard: index.html names ${logical}, which was not built`);
        return ASSET_PREFIX + hashed;
      })
      .replace('<!-- modulepreload -->', preload);
  }

  /** index.html with this server's facts; built on first use (the SMTP port is known by then). */
  page(): Asset {
    if (this.index) return this.index;
    const facts = this.facts();
    const html = this.indexTemplate
      .replace('{{MCP_URL}}', escapeAttr(facts.mcpUrl))
      .replace('{{SMTP_PORT}}', String(facts.smtpPort))
      .replace('{{DOMAINS}}', escapeAttr(facts.domains.join(',')));
    this.index = new Asset('text/html; charset=utf-8', Buffer.from(html));
    return this.index;
  }
}
