// Serves the dashboard: the page at /, /dashboard and every /dashboard/… path (the page routes on
// the client, so reload and Back keep the place), and its hashed assets. The page holds no data of
// its own: it calls /v1 with the API key and follows GET /v1/events.
import type { Exchange } from '../http/exchange.js';
import type { Router } from '../http/router.js';
import { ASSET_PREFIX, DashboardAssets, type Asset, type PageFacts } from './assets.js';

/**
 * The app page runs only its own modules and talks only to this origin. Styles may be inline and
 * images may come from anywhere only because a message's HTML is shown in a sandboxed srcdoc frame,
 * which inherits this policy: the frame's own stricter policy (message-frame.ts) decides what loads.
 */
const PAGE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob: https: http:",
  "connect-src 'self'", "frame-src 'self' blob:", "font-src 'self' data:", "manifest-src 'self'", "base-uri 'none'",
  "form-action 'none'", "frame-ancestors 'none'", "object-src 'none'",
].join('; ');

const COMMON: [string, string][] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['Vary', 'Accept-Encoding'],
];
const PAGE_HEADERS: [string, string][] = [...COMMON, ['Cache-Control', 'no-cache'], ['Content-Security-Policy', PAGE_CSP], ['X-Frame-Options', 'DENY']];
const ASSET_HEADERS: [string, string][] = [...COMMON, ['Cache-Control', 'public, max-age=31536000, immutable']];

/** brotli, else gzip, else as is; a coding listed with q=0 is refused. */
function encodingFor(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  const offered = new Set<string>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p))) continue;
    if (name) offered.add(name.trim());
  }
  if (offered.has('br')) return 'br';
  if (offered.has('gzip')) return 'gzip';
  return null;
}

function serve(ex: Exchange, asset: Asset, headers: [string, string][]): void {
  const all: [string, string][] = [...headers, ['ETag', asset.etag]];
  const conditional = ex.header('if-none-match');
  if (conditional && conditional.split(',').some((t) => t.trim().replace(/^W\//, '') === asset.etag)) {
    ex.send(304, '', null, all);
    return;
  }
  const coding = encodingFor(ex.header('accept-encoding'));
  if (coding) all.push(['Content-Encoding', coding]);
  ex.send(200, coding ? asset[coding] : asset.identity, asset.type, all);
}

export function dashboardRoutes(router: Router, facts: () => PageFacts): void {
  const assets = new DashboardAssets(facts);
  const page = (ex: Exchange) => serve(ex, assets.page(), PAGE_HEADERS);
  for (const path of ['/', '/dashboard', '/dashboard/*']) router.add('get', path, page);
  router.add('get', `${ASSET_PREFIX}:name`, (ex) => {
    const asset = assets.files.get(ex.params[0] ?? '');
    if (!asset) {
      ex.send(404, 'Not found', 'text/plain; charset=utf-8', [...COMMON, ['Cache-Control', 'no-store']]);
      return;
    }
    serve(ex, asset, ASSET_HEADERS);
  });
}
