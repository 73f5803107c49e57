// End to end, without a browser: how the dashboard is served (compressed, cached by ETag and
// immutable hashed names, a strict CSP, under 60 KB compressed on first load), and the two API
// additions it relies on: the GET /v1/events stream and message-list paging and search.
import test from 'ava';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';

type Json = Record<string, any>;
let svc: Service;

test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await svc?.stop();
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET whose body is counted as it travels (fetch would decompress it). */
function get(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http.get(`${svc.baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

test('dashboard assets - compressed, cached, hashed, under 60 KB on first load, with a strict CSP', async (t) => {
  const page = await get('/dashboard/inboxes/a%40mailcue.test', { 'accept-encoding': 'gzip, deflate, br' });
  t.is(page.status, 200);
  t.is(page.headers['content-encoding'], 'br');
  t.is(page.headers['cache-control'], 'no-cache');
  t.is(page.headers.vary, 'Accept-Encoding');
  const csp = String(page.headers['content-security-policy']);
  t.regex(csp, /default-src 'none'/);
  t.regex(csp, /script-src 'self'(;|$)/, 'no inline script, no eval');
  t.regex(csp, /connect-src 'self'/);
  t.regex(csp, /frame-ancestors 'none'/);
  const html = brotliDecompressSync(page.body).toString('utf8');
  t.notRegex(html, /<script>|<script [^>]*>[^<]/, 'no inline script');

  const again = await get('/dashboard', { 'accept-encoding': 'br', 'if-none-match': String(page.headers.etag) });
  t.is(again.status, 304);
  t.is(again.body.length, 0);

  const assets = [...html.matchAll(/(?:href|src)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  t.true(assets.some((a) => /\/main\.[0-9a-f]{10}\.js$/.test(a)) && assets.some((a) => /\/app\.[0-9a-f]{10}\.css$/.test(a)));
  let total = page.body.length;
  for (const asset of assets) {
    const res = await get(asset, { 'accept-encoding': 'br' });
    t.is(res.status, 200, asset);
    t.is(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    t.is(res.headers['content-encoding'], 'br');
    total += res.body.length;
    // Every module a module imports is served, under its hashed name.
    for (const m of brotliDecompressSync(res.body).toString('utf8').matchAll(/from\s*['"]\.\/([^'"]+)['"]/g)) {
      t.is((await get(`/dashboard/assets/${m[1]}`)).status, 200, `${asset} imports ${m[1]}`);
    }
  }
  t.true(total < 60 * 1024, `first load is ${total} bytes compressed`);
  t.log(`first load: ${assets.length + 1} files, ${total} bytes brotli`);

  const gz = await get(assets[0]!, { 'accept-encoding': 'gzip' });
  t.is(gz.headers['content-encoding'], 'gzip');
  t.true(gunzipSync(gz.body).length > 0);
  const plain = await get(assets[0]!, { 'accept-encoding': 'br;q=0, gzip;q=0' });
  t.is(plain.headers['content-encoding'], undefined);
  t.is((await get('/dashboard/assets/main.0000000000.js')).status, 404);
});

/** Reads server-sent events from GET /v1/events until `until` says stop. */
async function readEvents(key: string, until: (events: { event: string; data: Json }[]) => boolean, onReady?: () => Promise<void>): Promise<{ event: string; data: Json }[]> {
  const controller = new AbortController();
  const res = await fetch(`${svc.baseUrl}/v1/events`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
  if (res.status !== 200) throw new Error(`events: ${res.status}`);
  const events: { event: string; data: Json }[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = res.body!.getReader();
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (event) events.push({ event, data: data ? JSON.parse(data) : {} });
        if (event === 'ready' && onReady) await onReady();
      }
    }
  } finally {
    controller.abort();
  }
  return events;
}

test('GET /v1/events - ready, then each change of the account (and only of this account)', async (t) => {
  const unauthorized = await fetch(`${svc.baseUrl}/v1/events`);
  t.is(unauthorized.status, 401);
  const mine = await svc.createAccount('growth');
  const other = await svc.createAccount('growth');
  const events = await readEvents(mine.api_key, (e) => e.filter((x) => x.event === 'change').flatMap((x) => x.data.changes).length >= 3, async () => {
    await svc.api(other.api_key, 'POST', '/v1/inboxes', { address: 'theirs@mailcue.test' });
    await svc.api(mine.api_key, 'POST', '/v1/inboxes', { address: 'live@mailcue.test' });
    await sendMail(svc.smtpPort, { to: 'live@mailcue.test', subject: 's', text: 'x' });
    await svc.api(mine.api_key, 'POST', '/v1/custom-domains', { domain: 'events.example.com' });
  });
  t.is(events[0]!.event, 'ready');
  const changes = events.filter((x) => x.event === 'change').flatMap((x) => x.data.changes);
  t.true(changes.some((c: Json) => c.kind === 'inbox' && c.inbox === 'live@mailcue.test'));
  t.true(changes.some((c: Json) => c.kind === 'domains'));
  t.false(changes.some((c: Json) => c.inbox === 'theirs@mailcue.test'), 'another account\'s inbox is not told');
  t.is((await fetch(`${svc.baseUrl}/v1/events`, { headers: { authorization: 'Bearer mc_nope' } })).status, 401);
});

test('GET /v1/inboxes/{address}/messages - before pages past the newest, q searches sender, subject and code', async (t) => {
  const { api_key } = await svc.createAccount('free');
  await svc.api(api_key, 'POST', '/v1/inboxes', { address: 'pages@mailcue.test' });
  for (let i = 0; i < 5; i++) await sendMail(svc.smtpPort, { from: i === 2 ? 'Billing <billing@shop.example>' : 'a@b.example', to: 'pages@mailcue.test', subject: `S${i}`, text: i === 3 ? 'code 640021' : 'hi' });
  const list = async (query: string) => ((await (await svc.api(api_key, 'GET', `/v1/inboxes/pages@mailcue.test/messages?${query}`)).json()) as Json);
  const first = (await list('limit=2')).data;
  t.deepEqual(first.map((m: Json) => m.subject), ['S4', 'S3']);
  const second = (await list(`limit=2&before=${first[1].id}`)).data;
  t.deepEqual(second.map((m: Json) => m.subject), ['S2', 'S1']);
  t.deepEqual((await list(`limit=10&before=${second[1].id}`)).data.map((m: Json) => m.subject), ['S0']);
  t.deepEqual((await list('q=BILLING@')).data.map((m: Json) => m.subject), ['S2']);
  t.deepEqual((await list('q=s1')).data.map((m: Json) => m.subject), ['S1']);
  t.deepEqual((await list('q=640021')).data.map((m: Json) => m.subject), ['S3']);
  const bad = await list('before=nope');
  t.is(bad.error, 'invalid_parameter');
  t.is((await list(`q=${'x'.repeat(201)}`)).error, 'invalid_parameter');
});
