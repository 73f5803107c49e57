// Debian's Chromium driven by playwright-core, launched once per test file, with the checks the
// dashboard tests share: sign-in, requests to other origins, horizontal overflow, axe-core.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic',
];

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export function launchChromium(): Promise<Browser> {
  // A fresh temporary profile per launch: launch() (not launchPersistentContext) makes one.
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export interface TrackedPage {
  context: BrowserContext;
  page: Page;
  /**
   * Every URL outside `origin` (data:, blob:, about: aside) that the page or its frames sent: a
   * request the page's or a frame's CSP blocked never left the browser and is not counted.
   */
  foreign: string[];
  errors: string[];
  close(): Promise<void>;
}

export async function openPage(browser: Browser, origin: string, options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {}): Promise<TrackedPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, colorScheme: options.colorScheme ?? 'light', acceptDownloads: true });
  const page = await context.newPage();
  const foreign: string[] = [];
  const errors: string[] = [];
  const note = (url: string) => {
    if (!url.startsWith(origin) && !/^(data|blob|about):/.test(url)) foreign.push(url);
  };
  page.on('requestfinished', (r) => note(r.url()));
  page.on('requestfailed', (r) => {
    if (!/^csp$|BLOCKED_BY_CSP|ERR_BLOCKED/i.test(r.failure()?.errorText ?? '')) note(r.url());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, foreign, errors, close: () => context.close() };
}

export async function signIn(page: Page, baseUrl: string, key: string, path = '/dashboard'): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.fill('#api-key', key);
  await page.click('#signin-form button[type=submit]');
  await page.waitForSelector('#nav:not([hidden])');
}

/** How far the page spills past the viewport's width (0 when it does not). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - document.documentElement.clientWidth);
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's critical and serious violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over the DevTools protocol, so the page's CSP (script-src 'self') does not apply.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
}
