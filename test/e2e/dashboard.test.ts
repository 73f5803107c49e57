// End to end: the web dashboard in Debian's Chromium, driven by Playwright. It shows the same
// inboxes, messages, custom domains and webhooks as the API, in both directions, at once.
import test from 'ava';
import { chromium, type Browser } from 'playwright-core';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;
let browser: Browser;

test.before(async () => {
  svc = await startService({ env: { MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
test.after.always(async () => {
  await browser?.close();
  await svc?.stop();
});

test('dashboard - sign in, create an inbox, read its code, manage domains and see webhooks, in step with the API', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  const page = await browser.newPage();
  await page.goto(`${svc.baseUrl}/dashboard`);
  await page.fill('#api-key', 'mc_wrong');
  await page.click('#signin-form button');
  await page.waitForSelector('#signin-error:not(:empty)');
  await page.fill('#api-key', api_key);
  await page.click('#signin-form button');
  await page.waitForSelector('#plan:has-text("growth plan")');

  await page.fill('#inbox-address', 'dash@mailcue.test');
  await page.click('#inbox-form button');
  await page.waitForSelector('tr[data-inbox="dash@mailcue.test"]');
  const apiInboxes = ((await (await svc.api(api_key, 'GET', '/v1/inboxes')).json()) as Json).data;
  t.true(apiInboxes.some((i: Json) => i.address === 'dash@mailcue.test'));

  await sendMail(svc.smtpPort, { to: 'dash@mailcue.test', subject: 'Your login code', text: 'Your login code is 724031.' });
  await page.click('tr[data-inbox="dash@mailcue.test"] button.open');
  await page.waitForSelector('#message-rows td.otp:has-text("724031")');
  await page.click('#message-rows button.view');
  await page.waitForSelector('#message-body:has-text("Your login code is 724031")');

  await page.click('nav button[data-tab="domains"]');
  await page.fill('#domain-name', 'ui.example.com');
  await page.click('#domain-form button');
  await page.waitForSelector('tr[data-domain="ui.example.com"]');
  let apiDomains = ((await (await svc.api(api_key, 'GET', '/v1/custom-domains')).json()) as Json).data;
  t.true(apiDomains.some((d: Json) => d.domain === 'ui.example.com'), 'added in the dashboard, listed by the API');
  t.regex(await page.textContent('tr[data-domain="ui.example.com"]') ?? '', /mailcue-verification=[0-9a-f]{32}/);

  await svc.api(api_key, 'POST', '/v1/custom-domains', { domain: 'api.example.com' });
  await page.click('nav button[data-tab="domains"]');
  await page.waitForSelector('tr[data-domain="api.example.com"]');
  await page.click('tr[data-domain="ui.example.com"] button.delete');
  await page.waitForSelector('tr[data-domain="ui.example.com"]', { state: 'detached' });
  apiDomains = ((await (await svc.api(api_key, 'GET', '/v1/custom-domains')).json()) as Json).data;
  t.deepEqual(apiDomains.map((d: Json) => d.domain), ['api.example.com']);
  await svc.api(api_key, 'DELETE', '/v1/custom-domains/api.example.com');
  await page.click('nav button[data-tab="domains"]');
  await page.waitForSelector('tr[data-domain="api.example.com"]', { state: 'detached' });

  const hook = (await (await svc.api(api_key, 'POST', '/v1/webhooks', { url: 'https://127.0.0.1:9/hook', inbox: 'dash@mailcue.test' })).json()) as Json;
  await page.click('nav button[data-tab="webhooks"]');
  await page.waitForSelector(`tr[data-id="${hook.id}"]`);
  await page.click(`tr[data-id="${hook.id}"] button.delete`);
  await page.waitForSelector(`tr[data-id="${hook.id}"]`, { state: 'detached' });
  t.is(((await (await svc.api(api_key, 'GET', '/v1/webhooks')).json()) as Json).count, 0);
  await page.close();
});

test('dashboard - a Free account sees why custom domains are unavailable', async (t) => {
  const { api_key } = await svc.createAccount('free');
  const page = await browser.newPage();
  await page.goto(`${svc.baseUrl}/`);
  await page.fill('#api-key', api_key);
  await page.click('#signin-form button');
  await page.waitForSelector('#plan:has-text("free plan")');
  await page.click('nav button[data-tab="domains"]');
  await page.waitForSelector('#domain-error:has-text("not available on the Free plan")');
  t.regex((await page.textContent('#domain-error')) ?? '', /Growth or Enterprise is required/);
  await page.close();
});
