// End to end: scoped keys on the dashboard's account page, in Debian's Chromium driven by
// Playwright: create one (its secret shown once), use it, rotate and delete it through the
// confirmation dialog; signed in with a scoped key, the page says keys need the account's key.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage, seriousViolations, signIn } from '../helpers/browser.js';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';

let svc: Service;
let browser: Browser;

test.before(async () => {
  svc = await startService();
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

const status = async (key: string, path: string) => (await svc.api(key, 'GET', path)).status;

test('dashboard keys - create a read-only key for one inbox, see its secret once, rotate it, delete it', async (t) => {
  const account = await svc.createAccount('growth');
  const inbox = 'dash-keys@mailcue.test';
  t.is((await svc.api(account.api_key, 'POST', '/v1/inboxes', { address: inbox })).status, 201);
  t.is((await svc.api(account.api_key, 'POST', '/v1/inboxes', { address: 'dash-other@mailcue.test' })).status, 201);
  const { page, errors, close } = await openPage(browser, svc.baseUrl);
  await signIn(page, svc.baseUrl, account.api_key, '/dashboard/account');
  await page.waitForSelector('#key-form');
  // The list fills in after the form appears (its own request): wait for its text, not a guess.
  await page.locator('#key-list', { hasText: /No scoped keys yet/ }).waitFor();
  t.regex(await page.textContent('#key-list') ?? '', /No scoped keys yet/);

  await page.fill('#key-name', 'CI <job>');
  await page.fill('#key-inboxes', inbox);
  await page.check('#key-read-only');
  await page.selectOption('#key-expiry', '86400');
  await page.click('#key-form button[type=submit]');
  await page.waitForSelector('#new-key-secret');
  const secret = (await page.textContent('#new-key-secret'))!.trim();
  t.regex(secret, /^mck_/);
  const row = page.locator('#key-list tr[data-key]');
  await row.waitFor();
  const id = (await row.getAttribute('data-key'))!;
  t.regex(await row.textContent() ?? '', /CI <job>/, 'the name is text, not markup');
  t.regex(await row.textContent() ?? '', new RegExp(`${inbox} · read-only`));
  t.deepEqual(await seriousViolations(page), []);
  // The key works as the page said: its inbox yes, another no, no writes.
  t.is(await status(secret, `/v1/inboxes/${inbox}/messages`), 200);
  t.is(await status(secret, '/v1/inboxes/dash-other@mailcue.test'), 403);
  t.is((await svc.api(secret, 'DELETE', `/v1/inboxes/${inbox}`)).status, 403);

  await page.click(`button:has-text("Rotate ${id}")`);
  await page.click('dialog button[value="ok"]');
  await page.waitForFunction((old) => document.getElementById('new-key-secret')?.textContent?.trim() !== old, secret);
  const rotated = (await page.textContent('#new-key-secret'))!.trim();
  t.is(await status(secret, `/v1/inboxes/${inbox}/messages`), 401, 'the old secret');
  t.is(await status(rotated, `/v1/inboxes/${inbox}/messages`), 200, 'the new one');

  await page.click(`button:has-text("Delete ${id}")`);
  await page.click('dialog button[value="ok"]');
  await row.waitFor({ state: 'detached' });
  t.is(await status(rotated, `/v1/inboxes/${inbox}/messages`), 401);
  t.deepEqual(errors, []);
  await close();

  // Signed in with a scoped key, the page works for its inbox and says who manages keys.
  const scoped = ((await (await svc.api(account.api_key, 'POST', '/v1/keys', { inboxes: [inbox] })).json()) as { data: { key: string } }).data.key;
  const second = await openPage(browser, svc.baseUrl);
  await signIn(second.page, svc.baseUrl, scoped, '/dashboard/account');
  await second.page.waitForSelector('#key-error:has-text("account\'s API key")');
  await second.close();
});

test('dashboard keys - a live refresh of the account page keeps what is being typed in the key form', async (t) => {
  const account = await svc.createAccount('growth');
  const inbox = 'dash-live-keys@mailcue.test';
  t.is((await svc.api(account.api_key, 'POST', '/v1/inboxes', { address: inbox })).status, 201);
  const { page, close } = await openPage(browser, svc.baseUrl);
  await signIn(page, svc.baseUrl, account.api_key, '/dashboard/account');
  await page.waitForSelector('#key-form');
  await page.waitForSelector('#live.on');
  await page.fill('#key-name', 'half typed');
  await page.check('#key-read-only');
  // Mail to one of the account's inboxes makes the page read the account again and render it.
  const before = await page.textContent('#requests-minute');
  await sendMail(svc.smtpPort, { to: inbox, subject: 'refresh', text: 'x' });
  await page.waitForFunction((text) => document.getElementById('requests-minute')?.textContent !== text, before);
  t.is(await page.inputValue('#key-name'), 'half typed');
  t.true(await page.isChecked('#key-read-only'));
  await close();
});
