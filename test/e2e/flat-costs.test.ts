// End to end: the reads whose cost must stay flat as data grows (issue 37), driven over REST and
// SMTP. Inbox lists come in pages, unread_only lists only unread mail, an attachment download
// reads the part stored at ingest (the shard reads no raw source for it), and a deleted inbox is
// gone from the API at once while its messages are removed behind it.
import test from 'ava';
import { metricValue } from '../helpers/isolation.js';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
let key: string;

test.before(async () => {
  svc = await startService();
  key = (await svc.createAccount('free')).api_key;
});
test.after.always(async () => {
  await svc?.stop();
});

const json = async (res: Response): Promise<Json> => (await res.json()) as Json;
const commands = async (name: string) => metricValue(await svc.metrics(), 'mailcue_shard_commands_dispatched', `command="${name}"`);

async function newInbox(apiKey: string, address?: string): Promise<string> {
  const res = await svc.api(apiKey, 'POST', '/v1/inboxes', address ? { address } : {});
  if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
  return (await json(res)).data.address;
}

async function messages(address: string, query = ''): Promise<Json> {
  return json(await svc.api(key, 'GET', `/v1/inboxes/${address}/messages${query}`));
}

test('inbox pages - GET /v1/inboxes pages with limit and cursor, oldest first, each inbox once, over both shards', async (t) => {
  const owner = (await svc.createAccount('developer')).api_key;
  const made: string[] = [];
  for (let i = 0; i < 23; i++) made.push(await newInbox(owner, `page-${String(i).padStart(2, '0')}@mailcue.test`));
  const seen: Json[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Json = await json(await svc.api(owner, 'GET', `/v1/inboxes?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
    t.true(page.success);
    t.is(page.count, page.data.length);
    t.true(page.count <= 10);
    seen.push(...page.data);
    cursor = page.next_cursor ?? null;
    pages++;
  } while (cursor !== null && pages < 10);
  t.is(pages, 3);
  t.deepEqual(seen.map((i) => i.address).sort(), [...made].sort(), 'every inbox once');
  const order = seen.map((i) => `${i.created_at} ${i.address}`);
  t.deepEqual(order, [...order].sort(), 'oldest first');
  // Without a limit: one page of up to 1,000, the whole list here.
  const all = await json(await svc.api(owner, 'GET', '/v1/inboxes'));
  t.is(all.count, 23);
  t.false('next_cursor' in all, 'no next page');
  for (const bad of ['?limit=0', '?limit=1001', '?cursor=not-ours']) {
    const res = await svc.api(owner, 'GET', `/v1/inboxes${bad}`);
    t.is(res.status, 400, bad);
    t.like(await json(res), { success: false, error: 'invalid_parameter' });
  }
});

test('unread_only - lists only unread messages, newest first, and pages with before', async (t) => {
  const inbox = await newInbox(key);
  for (let i = 0; i < 6; i++) await sendMail(svc.smtpPort, { to: inbox, subject: `m${i}`, text: `body ${i}` });
  await until(async () => (await messages(inbox, '?limit=100')).count === 6, 'six messages');
  const listed = (await messages(inbox, '?limit=100')).data as Json[];
  // Read m4 and m1 (the list is newest first: m5 … m0).
  for (const m of [listed[1], listed[4]]) t.is((await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${m.id}`)).status, 200);
  const unread = await messages(inbox, '?unread_only=true&limit=100');
  t.deepEqual(unread.data.map((m: Json) => m.subject), ['m5', 'm3', 'm2', 'm0']);
  t.false('next_before' in unread, 'nothing older is left');
  const first = await messages(inbox, '?unread_only=true&limit=2');
  t.deepEqual(first.data.map((m: Json) => m.subject), ['m5', 'm3']);
  const second = await messages(inbox, `?unread_only=true&limit=2&before=${first.next_before}`);
  t.deepEqual(second.data.map((m: Json) => m.subject), ['m2', 'm0']);
  // Reading one takes it out of the unread list at once.
  await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${unread.data[0].id}`);
  t.deepEqual((await messages(inbox, '?unread_only=true')).data.map((m: Json) => m.subject), ['m3', 'm2', 'm0']);
});

test('attachments - a download reads the part stored at ingest: the shard reads no raw source for it', async (t) => {
  const inbox = await newInbox(key);
  const first = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256));
  const second = Buffer.from('second attachment, text\n');
  await sendMail(svc.smtpPort, {
    to: inbox, subject: 'two attachments', text: 'see attached',
    attachments: [{ filename: 'a.bin', content: first, contentType: 'application/octet-stream' }, { filename: 'b.txt', content: second, contentType: 'text/plain' }],
  });
  await until(async () => (await messages(inbox)).count === 1, 'the message');
  const id = (await messages(inbox)).data[0].id;
  const rawBefore = await commands('message.raw');
  const a = await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${id}/attachments/0`);
  t.is(a.status, 200);
  t.is(a.headers.get('content-type'), 'application/octet-stream');
  t.true(Buffer.from(await a.arrayBuffer()).equals(first));
  const b = await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${id}/attachments/1`);
  t.is(b.status, 200);
  t.true(Buffer.from(await b.arrayBuffer()).equals(second));
  t.regex(b.headers.get('content-disposition') ?? '', /b\.txt/);
  t.is(await commands('message.raw'), rawBefore, 'no raw source was read for either download');
  const missing = await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages/${id}/attachments/2`);
  t.is(missing.status, 404);
  t.like(await json(missing), { success: false, error: 'attachment_not_found' });
});

test('inbox delete - the inbox is gone at once; its address can be taken again and shows none of the old mail', async (t) => {
  const inbox = await newInbox(key);
  for (let i = 0; i < 30; i++) await sendMail(svc.smtpPort, { to: inbox, subject: `old ${i}`, text: 'old', attachments: i % 3 === 0 ? [{ filename: 'x.bin', content: Buffer.alloc(2000, i) }] : [] });
  await until(async () => (await messages(inbox)).count === 10, 'messages');
  t.is((await svc.api(key, 'DELETE', `/v1/inboxes/${inbox}`)).status, 200);
  t.is((await svc.api(key, 'GET', `/v1/inboxes/${inbox}`)).status, 404);
  t.false(((await json(await svc.api(key, 'GET', '/v1/inboxes'))).data as Json[]).some((i) => i.address === inbox));
  t.is((await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages`)).status, 404);
  await newInbox(key, inbox);
  const fresh = await messages(inbox);
  t.is(fresh.count, 0, 'none of the old messages');
  const view = await json(await svc.api(key, 'GET', `/v1/inboxes/${inbox}`));
  t.like(view.data, { message_count: 0, unread_count: 0 });
  await sendMail(svc.smtpPort, { to: inbox, subject: 'new', text: 'new' });
  await until(async () => (await messages(inbox)).count === 1, 'the new message');
  t.is((await messages(inbox)).data[0].subject, 'new');
});
