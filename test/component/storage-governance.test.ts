// Storage governance on one shard (DESIGN §7 "Storage is governed"), with a clock the test moves:
// retention deletes in bounded batches and never holds reads back; usage stays exact across
// deliveries, deletes and retention; a full inbox takes nothing where the message commits.
import test from 'ava';
import { clockedShard } from '../helpers/clocked-shard.js';
import type { DeliverResult, StorageUsage } from '../../src/contract/results.js';
import type { ParsedMessage } from '../../src/contract/model.js';
import { RETENTION_BATCH } from '../../src/actors/retention.js';

const ACCOUNT = { id: 'acc_00000000000000aa', plan: 'free' as const, key: 'mc_test_key' };
const DAY_MS = 86_400_000;

function parsed(size: number, subject = 'hello'): ParsedMessage {
  return {
    from: 'a@example.com', to: [], subject, text: 'x', html: null, headers: {}, attachments: [], otp: null, verification_link: null, size,
  };
}

async function setup(t: Parameters<typeof clockedShard>[0]) {
  const shard = await clockedShard(t, ACCOUNT, Date.now());
  const deliver = (addresses: string[], size: number, maxMessages?: Record<string, number>) =>
    shard.run<DeliverResult>({ type: 'inbox.deliver', addresses, message: parsed(size), raw: new Uint8Array(size), maxMessages });
  const usage = async () => {
    const rows = await shard.run<(StorageUsage & { slot: number })[]>({ type: 'inbox.usage', accountId: ACCOUNT.id });
    return rows.reduce((a, r) => ({ inboxes: a.inboxes + r.inboxes, messages: a.messages + r.messages, bytes: a.bytes + r.bytes }), { inboxes: 0, messages: 0, bytes: 0 });
  };
  const create = (address: string, retention: number | null = null) =>
    shard.run({ type: 'inbox.create', accountId: ACCOUNT.id, address, domain: 'mailcue.test', plan: 'free', retention });
  return { ...shard, deliver, usage, create };
}

test('retention - messages past the plan retention go in bounded batches; newer ones and the counters stay exact', async (t) => {
  const s = await setup(t);
  await s.create('old@mailcue.test');
  const OLD = 2 * RETENTION_BATCH + 37;
  for (let i = 0; i < OLD; i++) await s.deliver(['old@mailcue.test'], 1000);
  s.clock.ms += DAY_MS - 60_000; // a minute before the oldest turns one day old
  await s.deliver(['old@mailcue.test'], 500);
  t.deepEqual(await s.usage(), { inboxes: 1, messages: OLD + 1, bytes: OLD * 1000 + 500 });
  t.is(await s.actors.retention.sweep(), 0, 'nothing is past the free plan retention (1 day) yet');

  s.clock.ms += 120_000;
  const batchesBefore = s.actors.retention.batches;
  // A read issued while the sweep runs is answered before the sweep ends: it yields between batches.
  const order: string[] = [];
  const sweep = s.actors.retention.sweep().then((n) => (order.push('sweep'), n));
  await new Promise((r) => setImmediate(r));
  const listed = await s.run<unknown[]>({ type: 'message.list', accountId: ACCOUNT.id, address: 'old@mailcue.test', limit: 100, unreadOnly: false });
  order.push('read');
  t.true(listed.length > 0);
  t.is(await sweep, OLD);
  t.deepEqual(order, ['read', 'sweep'], 'the read did not wait for the whole sweep');
  t.true(s.actors.retention.batches - batchesBefore >= Math.ceil(OLD / RETENTION_BATCH), 'one small transaction per batch');
  t.deepEqual(await s.usage(), { inboxes: 1, messages: 1, bytes: 500 });
  const inbox = await s.run<{ message_count: number; unread_count: number }>({ type: 'inbox.get', accountId: ACCOUNT.id, address: 'old@mailcue.test' });
  t.like(inbox, { message_count: 1, unread_count: 1 });
});

test('retention - an inbox with a shorter retention of its own keeps mail only that long', async (t) => {
  const s = await setup(t);
  await s.create('short@mailcue.test', 60);
  await s.create('plain@mailcue.test');
  await s.deliver(['short@mailcue.test', 'plain@mailcue.test'], 2000);
  s.clock.ms += 61_000;
  t.is(await s.actors.retention.sweep(), 1);
  t.deepEqual(await s.usage(), { inboxes: 2, messages: 1, bytes: 2000 });
  // A raw source shared by both recipients stays while the other message needs it.
  const [summary] = await s.run<{ id: string }[]>({ type: 'message.list', accountId: ACCOUNT.id, address: 'plain@mailcue.test', limit: 1, unreadOnly: false });
  const raw = await s.run<Uint8Array>({ type: 'message.raw', accountId: ACCOUNT.id, address: 'plain@mailcue.test', id: summary!.id });
  t.is(raw.byteLength, 2000);
});

test('usage - exact across deliveries, message and inbox deletes; a full inbox takes nothing where it commits', async (t) => {
  const s = await setup(t);
  await s.create('a@mailcue.test');
  await s.create('b@mailcue.test');
  const first = await s.deliver(['a@mailcue.test', 'b@mailcue.test'], 300, { 'a@mailcue.test': 2, 'b@mailcue.test': 2 });
  t.deepEqual(first.delivered.sort(), ['a@mailcue.test', 'b@mailcue.test']);
  await s.deliver(['a@mailcue.test'], 700, { 'a@mailcue.test': 2 });
  const third = await s.deliver(['a@mailcue.test', 'b@mailcue.test'], 50, { 'a@mailcue.test': 2, 'b@mailcue.test': 2 });
  t.deepEqual(third.full, ['a@mailcue.test'], 'a holds its 2 messages: nothing more is stored for it');
  t.deepEqual(third.delivered, ['b@mailcue.test']);
  t.deepEqual(await s.usage(), { inboxes: 2, messages: 4, bytes: 300 + 300 + 700 + 50 });
  await s.run({ type: 'message.delete', accountId: ACCOUNT.id, address: 'a@mailcue.test', id: first.id });
  t.deepEqual(await s.usage(), { inboxes: 2, messages: 3, bytes: 300 + 700 + 50 });
  await s.run({ type: 'inbox.delete', accountId: ACCOUNT.id, address: 'b@mailcue.test' });
  t.deepEqual(await s.usage(), { inboxes: 1, messages: 1, bytes: 700 });
});

test('inbox slots - the account shard counts inboxes against the plan atomically', async (t) => {
  const s = await setup(t);
  const reserve = (address: string) => s.run<{ reserved: boolean }>({ type: 'account.inbox_reserve', accountId: ACCOUNT.id, address });
  const results = await Promise.allSettled(Array.from({ length: 15 }, (_, i) => reserve(`r${i}@mailcue.test`)));
  t.is(results.filter((r) => r.status === 'fulfilled').length, 10, 'the free plan holds 10 inboxes');
  const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  t.is(refused.reason.code, 'limit_reached');
  t.like(await reserve('r0@mailcue.test'), { reserved: false }, 'a slot already held is not taken twice');
  await s.run({ type: 'account.inbox_release', accountId: ACCOUNT.id, addresses: ['r0@mailcue.test'] });
  t.like(await reserve('new@mailcue.test'), { reserved: true });
  // Slots a crash left behind go once the inboxes that exist are known.
  t.is(await s.run<number>({ type: 'account.inbox_reconcile', accountId: ACCOUNT.id, addresses: ['r1@mailcue.test'] }), 1);
});
