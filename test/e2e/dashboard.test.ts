// End to end: the web dashboard in Debian's Chromium, driven by Playwright, against the real
// service. One browser for the file; each test opens its own context (viewport, colour scheme).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, signIn } from '../helpers/browser.js';
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
  t.regex(await page.textContent('#signin details') ?? '', /create-account/);
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
