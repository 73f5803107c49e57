// End to end: the web dashboard in Debian's Chromium, driven by Playwright, against the real
// service. One browser for the file; each test opens its own context (viewport, colour scheme).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { DESKTOP, horizontalOverflow, launchChromium, openPage, PHONE, seriousViolations, signIn } from '../helpers/browser.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;
let browser: Browser;
let dns: TestDnsServer;
/** A loopback HTTP server standing for "the rest of the internet": it counts what reaches it. */
let remote: http.Server;
const remoteHits: string[] = [];
let remoteOrigin = '';

test.before(async () => {
  dns = await startDnsServer();
  remote = http.createServer((req, res) => {
    remoteHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/gif' });
    res.end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
  });
  await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
  remoteOrigin = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  svc = await startService({
    restartable: true,
    env: {
      MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true', MAILCUE_DNS_SERVERS: dns.address, MAILCUE_WEBHOOK_RETRY_DELAYS_MS: '5,5,5', MAILCUE_WEBHOOK_TIMEOUT_MS: '2000',
    },
  });
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
  await dns?.close();
  remote?.close();
});

async function inboxFor(key: string, address: string): Promise<void> {
  const res = await svc.api(key, 'POST', '/v1/inboxes', { address });
  if (res.status !== 201) throw new Error(`inbox ${address}: ${res.status} ${await res.text()}`);
}

test.serial('dashboard - first use: where a key comes from, create an inbox, an SMTP command, then new mail appears live', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  const { page, foreign, errors, close } = await openPage(browser, svc.baseUrl);
  await page.goto(`${svc.baseUrl}/`);
  t.regex(await page.textContent('#key-source') ?? '', /create-account/);
  await page.fill('#api-key', 'mc_wrong');
  await page.click('#signin-form button[type=submit]');
  await page.waitForSelector('#signin-error:not(:empty)');
  await signIn(page, svc.baseUrl, api_key, '/');
  t.true(page.url().endsWith('/dashboard/inboxes'));
  await page.waitForSelector('#inbox-list, .inboxes .empty');
  t.regex(await page.textContent('.inboxes') ?? '', /No inboxes yet/);

  await page.fill('#inbox-address', 'first@mailcue.test');
  await page.click('#inbox-form button');
  await page.waitForSelector('#smtp-command');
  t.true(page.url().endsWith('/dashboard/inboxes/first%40mailcue.test'), page.url());
  t.regex(await page.textContent('#smtp-command') ?? '', new RegExp(`swaks --server 127\\.0\\.0\\.1:${svc.smtpPort} --to first@mailcue\\.test`));

  // Live: the open inbox, its row's counts, no reload (the marker set on window survives).
  await page.evaluate(() => ((window as any).__sameDocument = true));
  await sendMail(svc.smtpPort, { to: 'first@mailcue.test', subject: 'Welcome aboard', text: 'Your code is 318405.' });
  await page.waitForSelector('#message-list a.msg.unread:has-text("Welcome aboard")', { timeout: 2000 });
  await page.waitForSelector('#inbox-list a[data-inbox="first@mailcue.test"]:has-text("1 messages · 1 unread")', { timeout: 2000 });
  // An inbox created through REST, and mail to it, show in the list without reload.
  await inboxFor(api_key, 'second@mailcue.test');
  await sendMail(svc.smtpPort, { to: 'second@mailcue.test', subject: 'Second', text: 'hello' });
  await page.waitForSelector('#inbox-list a[data-inbox="second@mailcue.test"]:has-text("1 messages")', { timeout: 2000 });
  t.true(await page.evaluate(() => (window as any).__sameDocument === true), 'no reload happened');

  // Opening it marks it read: bold goes, the count follows.
  await page.click('#message-list a.msg');
  await page.waitForSelector('#message-subject:has-text("Welcome aboard")');
  await page.waitForSelector('#inbox-list a[data-inbox="first@mailcue.test"]:has-text("0 unread")');
  await page.waitForSelector('#message-list a.msg:not(.unread)');
  t.regex(await page.textContent('#cue-otp') ?? '', /318405/);
  t.deepEqual(foreign, []);
  t.deepEqual(errors, []);
  await close();
});

test.serial('dashboard - hostile HTML runs nothing and requests nothing remote until remote images are allowed for that message', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  await inboxFor(api_key, 'hostile@mailcue.test');
  const r = remoteOrigin;
  const html = `<!doctype html><html><head>
    <meta http-equiv="refresh" content="0;url=${r}/refresh">
    <base href="${r}/base/">
    <link rel="stylesheet" href="${r}/css">
    <link rel="prefetch" href="${r}/prefetch">
    <style>@import url(${r}/import); .x { background: url(${r}/bg) }</style>
    <script>document.title = 'SCRIPT RAN'; new Image().src = '${r}/script'; top.location = '${r}/top';</script>
    </head><body>
    <p id="hello">Hello, click <a href="https://example.com/verify?t=1">verify</a> to continue.</p>
    <img src="${r}/img">
    <div class="x" style="background-image:url(${r}/inline-bg)">x</div>
    <img src="nope" onerror="new Image().src='${r}/onerror'">
    <iframe src="${r}/frame"></iframe>
    <object data="${r}/object"></object>
    <video poster="${r}/poster"></video>
    <svg><image href="${r}/svg"></image></svg>
    <form action="${r}/form"><input name="q" value="1"><button id="send">go</button></form>
    <script src="${r}/script-src"></script>
    </body></html>`;
  await sendMail(svc.smtpPort, { to: 'hostile@mailcue.test', subject: 'Hostile', html });
  const list = (await (await svc.api(api_key, 'GET', '/v1/inboxes/hostile@mailcue.test/messages')).json()) as Json;
  const id = list.data[0].id as string;

  const { page, foreign, close } = await openPage(browser, svc.baseUrl);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await signIn(page, svc.baseUrl, api_key, `/dashboard/inboxes/hostile%40mailcue.test/${id}`);
  const frameEl = await page.waitForSelector('iframe.mail');
  t.is(await frameEl.getAttribute('sandbox'), 'allow-popups allow-popups-to-escape-sandbox', 'no allow-scripts, no allow-same-origin');
  const frame = (await frameEl.contentFrame())!;
  await frame.waitForLoadState('load');
  await frame.waitForSelector('#hello');
  // Images hold back a frame's load event, so whatever the frame asked for has been asked by now.
  t.deepEqual(remoteHits, []);
  t.deepEqual(foreign, [], 'nothing requested beyond this origin');
  t.not(await frame.title(), 'SCRIPT RAN');
  t.true(page.url().startsWith(svc.baseUrl), 'the page was not navigated away');
  await frame.click('#send').catch(() => undefined);
  t.deepEqual(dialogs, []);

  await page.click('#show-remote');
  const allowed = (await (await page.waitForSelector('iframe.mail')).contentFrame())!;
  await allowed.waitForLoadState('load');
  await allowed.waitForSelector('#hello');
  const until = Date.now() + 5000;
  while (!remoteHits.includes('/img') && Date.now() < until) await new Promise((res) => setTimeout(res, 20));
  t.true(remoteHits.includes('/img'), 'the remote image loads once allowed');
  // Still nothing but images: no script, stylesheet, frame, object, refresh, base or form.
  t.deepEqual(remoteHits.filter((u) => !['/img', '/bg', '/inline-bg', '/poster', '/svg'].includes(u)), []);
  t.not(await allowed.title(), 'SCRIPT RAN');
  remoteHits.length = 0;
  await close();
});

test.serial('dashboard - message viewer: code and link on top, text from HTML, headers, source, and an attachment that downloads byte-identical', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  await inboxFor(api_key, 'viewer@mailcue.test');
  const bytes = randomBytes(40_000);
  await sendMail(svc.smtpPort, {
    to: 'viewer@mailcue.test', subject: 'Confirm your email',
    html: '<p>Your verification code is <b>604215</b>.</p><p><a href="https://accounts.example.org/confirm?token=abc">Confirm email</a></p>',
    attachments: [{ filename: 'report.bin', content: bytes, contentType: 'application/octet-stream' }],
  });
  const { page, foreign, close } = await openPage(browser, svc.baseUrl);
  await signIn(page, svc.baseUrl, api_key, '/dashboard/inboxes/viewer%40mailcue.test');
  await page.waitForSelector('#message-list a.msg svg[aria-label="has attachments"]');
  await page.click('#message-list a.msg');
  await page.waitForSelector('#cue-otp');
  t.is(await page.textContent('#cue-otp'), '604215');
  t.is(await page.textContent('#cue-host'), 'accounts.example.org');

  // Tabs: arrow keys move between them, and the URL keeps the tab.
  await page.focus('#tab-html');
  await page.keyboard.press('ArrowRight');
  t.is(await page.evaluate(() => document.activeElement?.id), 'tab-text');
  t.not(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle), 'none', 'keyboard focus is visible');
  t.is(await page.getAttribute('#tab-text', 'aria-selected'), 'true');
  t.regex(await page.textContent('#message-text') ?? '', /Your verification code is 604215\.\s+Confirm email/, 'an HTML-only mail has a text view');
  t.true(page.url().endsWith('#text'));
  await page.keyboard.press('ArrowRight');
  t.regex(await page.textContent('#message-panel') ?? '', /content-type/i);
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#message-source:has-text("Subject: Confirm your email")');
  await page.keyboard.press('ArrowRight');
  t.regex(await page.textContent('#message-panel') ?? '', /report\.bin[\s\S]*application\/octet-stream · 39\.1 KB/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[aria-label="Download report.bin"]')]);
  t.is(download.suggestedFilename(), 'report.bin');
  t.true(Buffer.compare(await readFile((await download.path())!), bytes) === 0, 'byte-identical');
  await page.keyboard.press('End');
  t.deepEqual(foreign, []);
  await close();
});

test.serial('dashboard - reload and Back keep the place; pages past 50 and a filter by sender, subject or code', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  await inboxFor(api_key, 'many@mailcue.test');
  for (let i = 0; i < 55; i++) {
    await sendMail(svc.smtpPort, { from: i === 7 ? 'billing@shop.example' : 'news@list.example', to: 'many@mailcue.test', subject: `Note ${i}`, text: i === 9 ? 'Your code is 771204' : `Message ${i}` });
  }
  const { page, foreign, close } = await openPage(browser, svc.baseUrl);
  await signIn(page, svc.baseUrl, api_key, '/dashboard/inboxes/many%40mailcue.test');
  await page.waitForSelector('#message-list');
  t.is(await page.locator('#message-list > li').count(), 50);
  await page.click('#older');
  await page.waitForSelector('#page-range:has-text("Messages 51–55")');
  t.deepEqual(await page.locator('#message-list .subject').allTextContents(), ['Unread: Note 4', 'Unread: Note 3', 'Unread: Note 2', 'Unread: Note 1', 'Unread: Note 0']);
  await page.click('#newer');
  await page.waitForSelector('#page-range', { state: 'detached' });

  for (const [query, subject] of [['billing@', 'Note 7'], ['note 12', 'Note 12'], ['771204', 'Note 9']] as const) {
    await page.fill('#message-filter', query);
    await page.waitForFunction((s) => {
      const rows = [...document.querySelectorAll('#message-list .subject')].map((e) => e.textContent);
      return rows.length === 1 && rows[0]!.endsWith(s);
    }, subject);
  }
  await page.fill('#message-filter', 'nothing-like-this');
  await page.waitForSelector('.messages .empty:has-text("No message matches")');
  await page.fill('#message-filter', '');
  await page.waitForSelector('#message-list');

  // Open a message, reload: the same message; Back: the inbox; Back again: the page before.
  await page.click('#message-list a.msg >> nth=0');
  await page.waitForSelector('#message-subject:has-text("Note 54")');
  const messageUrl = page.url();
  await page.click('#tab-headers');
  await page.reload();
  await page.waitForSelector('#message-subject:has-text("Note 54")');
  t.is(page.url(), `${messageUrl}#headers`);
  t.is(await page.getAttribute('#tab-headers', 'aria-selected'), 'true');
  t.is(await page.getAttribute('#message-list a[aria-current="true"]', 'data-id'), messageUrl.split('/').pop()!);
  await page.click('nav a[data-section="account"]');
  await page.waitForSelector('#account-plan');
  await page.goBack();
  await page.waitForSelector('#message-subject:has-text("Note 54")');
  t.is(await page.getAttribute('#inbox-list a[aria-current="true"]', 'data-inbox'), 'many@mailcue.test');
  t.deepEqual(foreign, []);
  await close();
});

test.serial('dashboard - domains: the two records with copy buttons, verify names what is missing, a REST-added domain appears live, delete lists the inboxes that go', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  const { page, context, close } = await openPage(browser, svc.baseUrl);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.baseUrl });
  await signIn(page, svc.baseUrl, api_key, '/dashboard/domains');
  await page.fill('#domain-name', 'ui.example.com');
  await page.click('#domain-form button');
  const card = page.locator('article[data-domain="ui.example.com"]');
  await card.waitFor();
  const d = ((await (await svc.api(api_key, 'GET', '/v1/custom-domains')).json()) as Json).data[0];
  t.regex(await card.textContent() ?? '', new RegExp(d.txt_record));
  await page.click('button[aria-label="Copy TXT record of ui.example.com"]');
  t.is(await page.evaluate(() => navigator.clipboard.readText()), d.txt_record);

  await page.click('button:has-text("Verify ui.example.com")');
  await card.locator('.error:has-text("MX")').waitFor();
  t.regex(await card.locator('.error').textContent() ?? '', /TXT/);
  dns.setMx('ui.example.com', [{ exchange: d.mx_record, priority: 10 }]);
  dns.setTxt('ui.example.com', [d.txt_record]);
  await page.click('button:has-text("Verify ui.example.com")');
  await card.locator('text=Verified').waitFor();

  await svc.api(api_key, 'POST', '/v1/custom-domains', { domain: 'api.example.com' });
  await page.waitForSelector('article[data-domain="api.example.com"]', { timeout: 2000 });

  await inboxFor(api_key, 'alice@ui.example.com');
  await inboxFor(api_key, 'bob@ui.example.com');
  await page.click('button:has-text("Delete domain ui.example.com")');
  await page.waitForSelector('dialog #inboxes-going');
  t.deepEqual((await page.locator('#inboxes-going li').allTextContents()).sort(), ['alice@ui.example.com', 'bob@ui.example.com']);
  await page.click('dialog button[value="cancel"]');
  t.true(await card.isVisible(), 'cancel keeps it');
  await page.click('button:has-text("Delete domain ui.example.com")');
  await page.click('dialog button[value="ok"]');
  await card.waitFor({ state: 'detached' });
  t.deepEqual(((await (await svc.api(api_key, 'GET', '/v1/inboxes')).json()) as Json).data, []);
  await svc.api(api_key, 'DELETE', '/v1/custom-domains/api.example.com');
  await page.waitForSelector('article[data-domain="api.example.com"]', { state: 'detached', timeout: 2000 });
  await close();
});

test.serial('dashboard - domains: a verify answer that comes back after a live update re-rendered the cards still shows on the card', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  await svc.api(api_key, 'POST', '/v1/custom-domains', { domain: 'race.example.com' });
  const { page, close } = await openPage(browser, svc.baseUrl);
  await signIn(page, svc.baseUrl, api_key, '/dashboard/domains');
  const card = page.locator('article[data-domain="race.example.com"]');
  await card.waitFor();
  await page.waitForSelector('#live.on');
  // The verify request is held at the browser until another domain, added over REST, has been
  // rendered by the live update: the card the button was clicked in is gone by then.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let seen!: () => void;
  const sent = new Promise<void>((resolve) => (seen = resolve));
  await page.route('**/v1/custom-domains/race.example.com/verify', async (route) => {
    seen();
    await held;
    await route.continue();
  });
  await page.click('button:has-text("Verify race.example.com")');
  await sent;
  await svc.api(api_key, 'POST', '/v1/custom-domains', { domain: 'later.example.com' });
  await page.locator('article[data-domain="later.example.com"]').waitFor();
  release();
  await card.locator('.error:has-text("MX")').waitFor({ timeout: 10_000 });
  t.regex(await card.locator('.error').textContent() ?? '', /TXT/);
  await close();
});

test.serial('dashboard - webhooks: the delivery log and the disabling show live; a disabled webhook is re-activated', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  await inboxFor(api_key, 'hooked@mailcue.test');
  const hook = (await (await svc.api(api_key, 'POST', '/v1/webhooks', { url: 'https://127.0.0.1:9/hook', inbox: 'hooked@mailcue.test' })).json()) as Json;
  const { page, close } = await openPage(browser, svc.baseUrl);
  await signIn(page, svc.baseUrl, api_key, '/dashboard/webhooks');
  const card = page.locator(`article[data-id="${hook.id}"]`);
  await card.locator('text=No deliveries yet.').waitFor();
  await page.waitForSelector('#live.on');
  await page.evaluate(() => ((window as any).__sameDocument = true));
  // The receiver's port is closed: every attempt fails; 10 failed notifications disable it.
  for (let i = 0; i < 10; i++) await sendMail(svc.smtpPort, { to: 'hooked@mailcue.test', subject: `n${i}`, text: 'x' });
  await card.locator('text=Disabled after 10 failures').waitFor({ timeout: 60_000 });
  t.true(await card.locator('tbody tr').count() > 0, 'the delivery log is shown');
  t.regex(await card.locator('tbody').textContent() ?? '', /ECONNREFUSED|connect|refused/i);
  t.true(await page.evaluate(() => (window as any).__sameDocument === true), 'no reload happened');
  await page.click(`button:has-text("Re-activate webhook ${hook.id}")`);
  await card.locator('text=Active').waitFor();
  const after = ((await (await svc.api(api_key, 'GET', '/v1/webhooks')).json()) as Json).data;
  t.is(after.length, 1, 'active again');
  await page.click(`button:has-text("Delete webhook ${hook.id}")`);
  await page.click('dialog button[value="ok"]');
  await card.waitFor({ state: 'detached' });
  await close();
});

test.serial('dashboard - account: plan, credits, sessions and an MCP config; a rotated key leads back to sign-in with a message', async (t) => {
  const account = await svc.createAccount('growth');
  const { page, context, close } = await openPage(browser, svc.baseUrl);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.baseUrl });
  await signIn(page, svc.baseUrl, account.api_key, '/dashboard/account');
  await page.waitForSelector('#account-plan:has-text("Growth ($49/month)")');
  t.regex(await page.textContent('#credits') ?? '', /0 used · 100,000 left of 100,000/);
  t.regex(await page.textContent('#ops-minute') ?? '', /of 60/);
  t.regex(await page.textContent('#sessions-open') ?? '', /0 of 5/);
  t.notRegex(await page.textContent('#mcp-config') ?? '', new RegExp(account.api_key), 'the key is not on screen');
  // Usage is live: mail to one of the account's inboxes makes the page read the account again.
  await page.waitForSelector('#live.on');
  const before = await page.textContent('#requests-minute');
  await inboxFor(account.api_key, 'usage@mailcue.test');
  await sendMail(svc.smtpPort, { to: 'usage@mailcue.test', subject: 'u', text: 'x' });
  await page.waitForFunction((text) => document.getElementById('requests-minute')?.textContent !== text, before, { timeout: 2000 });
  await page.click('button[aria-label="Copy MCP client config"]');
  const config = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  t.is(config.mcpServers.mailcue.url, `${svc.baseUrl}/mcp`);
  t.is(config.mcpServers.mailcue.headers.Authorization, `Bearer ${account.api_key}`);

  const rotated = await svc.admin('POST', `/admin/v1/accounts/${account.id}/rotate-key`);
  t.is(rotated.status, 200);
  // The next call the page makes is refused (a live refresh may make it first; then the nav is gone).
  await page.evaluate(() => document.querySelector<HTMLAnchorElement>('nav a[data-section="domains"]')!.click());
  await page.waitForSelector('#signin:not([hidden])');
  t.regex(await page.textContent('#signin-reason') ?? '', /rotated/);
  await page.reload();
  await page.waitForSelector('#signin:not([hidden])');
  t.is(await page.evaluate(() => sessionStorage.getItem('mailcue.key')), null, 'the stale key is gone');
  await close();
});

test.serial('dashboard - a Free account sees why custom domains are unavailable', async (t) => {
  const { api_key } = await svc.createAccount('free');
  const { page, close } = await openPage(browser, svc.baseUrl);
  await signIn(page, svc.baseUrl, api_key, '/dashboard/domains');
  await page.waitForSelector('#domain-error:has-text("Growth")');
  t.regex(await page.textContent('#domain-error') ?? '', /Free plan/);
  await close();
});

/** Where the screenshots go: test-artifacts/ (ignored by git) unless MAILCUE_SCREENSHOT_DIR says (docs/screenshots). */
const SHOTS = path.resolve(process.env.MAILCUE_SCREENSHOT_DIR ?? 'test-artifacts/screenshots');

interface Tour {
  key: string;
  emptyKey: string;
  messageId: string;
}
let tour: Tour | null = null;

/** One account with something on every page, and one with nothing (first use). */
async function tourAccounts(): Promise<Tour> {
  if (tour) return tour;
  const { api_key } = await svc.createAccount('growth');
  const empty = await svc.createAccount('growth');
  await inboxFor(api_key, 'signup@mailcue.test');
  await inboxFor(api_key, 'qa-bot@mailcue.test');
  await sendMail(svc.smtpPort, { from: 'Shop <orders@shop.example>', to: 'signup@mailcue.test', subject: 'Your order has shipped', text: 'Tracking: 1Z999' });
  await sendMail(svc.smtpPort, {
    from: 'Acme <no-reply@acme.example>', to: 'signup@mailcue.test', subject: 'Confirm your Acme account',
    html: '<h1 style="color:#0a58ca">Welcome to Acme</h1><p>Your verification code is <b>482913</b>.</p><p><a href="https://app.acme.example/verify?token=8f2c">Confirm my email</a></p>',
    attachments: [{ filename: 'terms.pdf', content: randomBytes(2048), contentType: 'application/pdf' }],
  });
  await svc.api(api_key, 'POST', '/v1/custom-domains', { domain: 'mail.acme.example' });
  await svc.api(api_key, 'POST', '/v1/webhooks', { url: 'https://127.0.0.1:9/mailcue', inbox: 'signup@mailcue.test' });
  const list = ((await (await svc.api(api_key, 'GET', '/v1/inboxes/signup@mailcue.test/messages')).json()) as Json).data;
  tour = { key: api_key, emptyKey: empty.api_key, messageId: list[0].id };
  return tour;
}

for (const [device, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
  for (const scheme of ['light', 'dark'] as const) {
    test.serial(`dashboard - every page on ${device} (${viewport.width} px), ${scheme}: no horizontal scroll, no serious axe violation, a screenshot`, async (t) => {
      const { key, emptyKey, messageId } = await tourAccounts();
      const { page, foreign, errors, close } = await openPage(browser, svc.baseUrl, { viewport, colorScheme: scheme });
      await mkdir(SHOTS, { recursive: true });
      const visit = async (name: string, ready: string) => {
        await page.waitForSelector(ready);
        // Live updates may re-render once after the stream connects; let that settle first.
        await page.waitForSelector('#live.on, #signin:not([hidden])');
        t.is(await horizontalOverflow(page), 0, `${name}: no horizontal overflow`);
        const violations = await seriousViolations(page);
        t.deepEqual(violations.map((v) => `${v.id}: ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`), [], `${name}: axe`);
        await page.screenshot({ path: path.join(SHOTS, `${name}-${device}-${scheme}.png`) });
      };
      await page.goto(`${svc.baseUrl}/`);
      await visit('signin', '#signin-form');
      await signIn(page, svc.baseUrl, emptyKey);
      await visit('first-use', '.inboxes .empty');
      await page.evaluate(() => sessionStorage.clear());
      await signIn(page, svc.baseUrl, key, '/dashboard/inboxes');
      await visit('inboxes', '#inbox-list');
      await page.goto(`${svc.baseUrl}/dashboard/inboxes/signup%40mailcue.test`);
      await visit('inbox', '#message-list');
      await page.goto(`${svc.baseUrl}/dashboard/inboxes/signup%40mailcue.test/${messageId}`);
      await visit('message', 'iframe.mail');
      await page.click('#tab-attachments');
      await visit('message-attachments', 'button[aria-label="Download terms.pdf"]');
      await page.click('nav a[data-section="domains"]');
      await visit('domains', 'article[data-domain="mail.acme.example"]');
      await page.click('nav a[data-section="webhooks"]');
      await visit('webhooks', '#webhook-list article');
      await page.click('nav a[data-section="account"]');
      await visit('account', '#mcp-config');
      t.deepEqual(foreign, []);
      t.deepEqual(errors, []);
      await close();
    });
  }
}

// Last: it restarts the service under the open page.
test.serial('dashboard - live updates recover after the connection drops (the service restarts)', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  await inboxFor(api_key, 'phoenix@mailcue.test');
  const { page, close } = await openPage(browser, svc.baseUrl);
  await signIn(page, svc.baseUrl, api_key, '/dashboard/inboxes/phoenix%40mailcue.test');
  await page.waitForSelector('#live.on');
  await page.evaluate(() => ((window as any).__sameDocument = true));
  await svc.restart();
  // The indicator shows the stream was lost while the service was down, then that it is back.
  await page.waitForSelector('#live.off', { timeout: 30_000 });
  await page.waitForSelector('#live.on', { timeout: 30_000 });
  await sendMail(svc.smtpPort, { to: 'phoenix@mailcue.test', subject: 'After the restart', text: 'code 550123' });
  await page.waitForSelector('#message-list a.msg:has-text("After the restart")', { timeout: 2000 });
  t.true(await page.evaluate(() => (window as any).__sameDocument === true), 'no reload happened');
  await close();
});
