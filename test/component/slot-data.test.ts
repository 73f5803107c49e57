// Component: with every slot-bound key starting with its slot, a slot's snapshot is its key range
// in each database (raw sources, webhooks, outbox and tokens included, nothing of another slot),
// pages add up to the whole, the receiving store finds everything through its slot index, the oplog
// numbers every write under the slot its key names, and dropping a slot leaves the others intact.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { slotOf } from '../../src/cluster/slots.js';
import type { MessageRecord } from '../../src/contract/model.js';
import { openShardStore, type ShardStore } from '../../src/storage/shard-store.js';
import { applyReplicated, applySlotEntries, dropSlot, readReplicated, readSlotPage, type SlotCursor, type SlotRecord } from '../../src/storage/slot-data.js';

const ACCOUNT = 'acc_slots';
const at = '2026-11-23T12:00:00.000Z';

function fresh(t: { teardown(fn: () => Promise<void>): void }): ShardStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-slotdata-'));
  const store = openShardStore(dir);
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

/** An address at x.test whose slot differs from each of `others` (searched in order: always the same). */
function addressNotIn(others: number[]): string {
  for (let i = 0; ; i++) if (!others.includes(slotOf(`m${i}@x.test`))) return `m${i}@x.test`;
}

function message(inbox: string, id: string): MessageRecord {
  return { id, inbox, from: 'f@x.test', to: [inbox], subject: id, date: at, text: id, html: null, headers: {}, attachments: [], otp: null, verification_link: null, read: false, size: 8 };
}

/** Two inboxes of one account in two slots (neither the account's), each with mail; a webhook on the first; a token. */
async function populate(store: ShardStore) {
  const a = addressNotIn([slotOf(ACCOUNT)]);
  const b = addressNotIn([slotOf(ACCOUNT), slotOf(a)]);
  await store.transaction(() => {
    void store.accounts.put({ id: ACCOUNT, name: null, plan: 'growth', key_hash: 'h', key_sealed: new Uint8Array([1]), created_at: at, credits_month: '2026-11', credits_used: 0 });
    for (const inbox of [a, b]) {
      store.inboxes.create({ address: inbox, domain: 'x.test', account_id: ACCOUNT, created_at: at, message_count: 1, unread_count: 1 });
      store.messages.put(message(inbox, `msg_${inbox}`));
      store.messages.putSource(`msg_${inbox}`, Buffer.from(`raw of ${inbox}`), 1, inbox);
      store.messages.putDigest(inbox, `msg_${inbox}`, `digest-${inbox}`);
    }
    store.webhooks.create({ id: 'wh_a', account_id: ACCOUNT, inbox: a, url: 'https://h.example/', created_at: at, failure_count: 0, disabled: false });
    void store.webhooks.putSealedKey(ACCOUNT, new Uint8Array([7, 7]));
    store.webhooks.logDelivery('wh_a', 1000, 'evt_1', 0, { at, status: 200, latency_ms: 1, error: null }, 100);
    store.outbox.put(2000, { event_id: 'evt_2', body: '{}', attempt: 0, targets: [{ webhook_id: 'wh_a', event_id: 'evt_2' }] }, slotOf(a));
    void store.tokens.put('tok_hash', { account_id: ACCOUNT, kind: 'access_token', expires_at: 4e12, scope: 'mcp' });
  });
  return { a, b };
}

function allPages(store: ShardStore, slot: number, maxBytes: number): SlotRecord[] {
  const out: SlotRecord[] = [];
  let cursor: SlotCursor | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = readSlotPage(store, slot, cursor, maxBytes);
    out.push(...page.records);
    cursor = page.next;
    if (cursor === null) return out;
  }
  throw new Error('too many pages');
}

test("slot data - a slot's snapshot is its key range, pages add up to it, and the receiving store finds everything", async (t) => {
  const src = fresh(t);
  const { a, b } = await populate(src);
  const slot = slotOf(a);

  const records = readSlotPage(src, slot, null, 1 << 24).records;
  // No raw_refs: a source of one message has no count.
  t.deepEqual(new Set(records.map((r) => r.db)), new Set(['inboxes', 'inboxes_by_account', 'messages', 'message_digests', 'raw_shared', 'webhooks', 'webhooks_by_inbox', 'webhooks_by_account', 'webhook_deliveries', 'outbox', 'webhook_keys']));
  for (const r of records) if (r.db !== 'webhook_keys') t.is((r.key as unknown[])[0], slot, `${r.db} ${JSON.stringify(r.key)}`);
  t.false(records.some((r) => JSON.stringify(r.key).includes(b)), "nothing of the other inbox's slot");
  t.deepEqual(allPages(src, slot, 1), records, 'one record per page gives the same records in the same order');

  // The oplog numbered every write under the slot its key starts with: a tail carries the raw source too.
  const logged = src.oplog.read(slot, 0, 1 << 24);
  t.true(logged.some(({ entry }) => entry.db === 'raw_shared'));
  for (const { entry } of logged) t.is((entry.key as unknown[])[0], slot);

  const dst = fresh(t);
  await applySlotEntries(dst, records);
  await applySlotEntries(dst, readSlotPage(src, slotOf(ACCOUNT), null, 1 << 24).records);
  t.is(dst.inboxes.get(a)?.account_id, ACCOUNT);
  t.deepEqual(dst.inboxes.addressesOf(ACCOUNT), [a]);
  t.is(dst.messages.raw(a, `msg_${a}`)?.toString(), `raw of ${a}`);
  t.is(dst.messages.byDigest(a, `digest-${a}`), `msg_${a}`);
  t.is(dst.webhooks.get('wh_a')?.inbox, a);
  t.deepEqual(dst.webhooks.idsForAccount(ACCOUNT), ['wh_a']);
  t.deepEqual(dst.webhooks.deliveries('wh_a', 10).map((d) => d.status), [200]);
  t.deepEqual(Buffer.from(dst.webhooks.sealedKey(ACCOUNT)!), Buffer.from([7, 7]));
  t.deepEqual([...dst.outbox.dueKeys()].map((k) => dst.outbox.get(k)?.event_id), ['evt_2']);
  t.is(dst.accounts.get(ACCOUNT)?.plan, 'growth');
  t.is(dst.tokens.get('tok_hash')?.account_id, ACCOUNT, "a token moves with its account's slot and is found by hash");
});

test('slot data - dropping a slot removes its range and its index entries, and leaves the other slots', async (t) => {
  const store = fresh(t);
  const { a, b } = await populate(store);
  const expected = readSlotPage(store, slotOf(a), null, 1 << 24).records.filter((r) => r.db !== 'webhook_keys').length;
  t.is(await dropSlot(store, slotOf(a)), expected);
  t.deepEqual(readSlotPage(store, slotOf(a), null, 1 << 24).records, []);
  t.is(store.inboxes.get(a), undefined);
  t.is(store.webhooks.get('wh_a'), undefined);
  t.deepEqual([...store.outbox.dueKeys()], []);
  t.deepEqual(store.webhooks.idsForAccount(ACCOUNT), []);
  t.deepEqual(store.inboxes.addressesOf(ACCOUNT), [b]);
  t.deepEqual([...store.messages.newestFirst(b)].map((m) => m.id), [`msg_${b}`]);
  t.is(store.messages.raw(b, `msg_${b}`)?.toString(), `raw of ${b}`);
  t.is(store.tokens.get('tok_hash')?.account_id, ACCOUNT);
});

test('slot data - a raw source is logged by its key, not copied into the log; a tail reads its bytes, or its removal once it is gone', async (t) => {
  const src = fresh(t);
  const { a } = await populate(src);
  const slot = slotOf(a);
  const id = `msg_${a}`;
  const logged = [...src.oplog.db.getRange({ start: [slot, 0], end: [slot, 2 ** 32] })].map(({ value }) => value);
  const put = logged.find((e) => e.db === 'raw_shared')!;
  t.true(put.byKey);
  t.false('value' in put, 'the log holds no copy of the bytes');

  const tail = readReplicated(src, slot, 0, 1 << 24);
  t.is(Buffer.from(tail.find((e) => e.db === 'raw_shared')!.value as Uint8Array).toString(), `raw of ${a}`);
  const dst = fresh(t);
  await applyReplicated(dst, slot, 1, tail);
  t.is(dst.messages.raw(a, id)?.toString(), `raw of ${a}`);
  t.true(dst.oplog.read(slot, 0, 1 << 24).some(({ entry }) => entry.db === 'raw_shared' && Buffer.from(entry.value as Uint8Array).toString() === `raw of ${a}`), "the follower's log hands it on too");

  // The message goes: the source's put now reads as a removal, and the removal follows it.
  await src.transaction(() => src.messages.remove(a, id));
  const later = readReplicated(src, slot, 0, 1 << 24).filter((e) => e.db === 'raw_shared');
  t.deepEqual(later.map((e) => Boolean(e.del)), [true, true]);
  const fresher = fresh(t);
  await applyReplicated(fresher, slot, 1, readReplicated(src, slot, 0, 1 << 24));
  t.is(fresher.messages.raw(a, id), undefined);
  t.deepEqual([...fresher.messages.newestFirst(a)], []);
});
