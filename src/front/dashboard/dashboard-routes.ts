// Serves the dashboard page at / and /dashboard. The page holds no data of its own: it calls /v1.
import type { Router } from '../http/router.js';
import { DASHBOARD_HTML } from './page.js';

const HEADERS: [string, string][] = [
  ['Cache-Control', 'no-cache'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Content-Security-Policy', "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'"],
];

export function dashboardRoutes(router: Router): void {
  for (const path of ['/', '/dashboard', '/dashboard/']) {
    router.add('get', path, (ex) => ex.send(200, DASHBOARD_HTML, 'text/html; charset=utf-8', HEADERS));
  }
}
