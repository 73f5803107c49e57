// Component: the InboxActor on a real LMDB store, with inboxes large enough that a per-inbox scan
// would show (issue 37). A search reads a bounded number of messages per request and says where to
// go on; a deleted inbox's messages go in several bounded transactions while other inboxes are
// read between them; an embedded shard's oplog is trimmed down to each slot's newest entry.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InboxActor, LIST_SCAN_MAX } from '../../src/actors/inbox-actor.js';
import { RECLAIM_BATCH } from '../../src/actors/inbox-reclaimer.js';
import { WaiterRegistry } from '../../src/actors/waiters.js';
import { loadConfig } from '../../src/config/config.js';
import type { MessageRecord, MessageSummary } from '../../src/contract/model.js';
import type { RequestScope } from '../../src/contract/results.js';
import { slotOf } from '../../src/cluster/slots.js';
import { openShardStore, type ShardStore } from '../../src/storage/shard-store.js';
import { Cancellation } from '../../src/util/cancel.js';
import { newMessageId } from '../../src/util/ids.js';

const ACCOUNT = 'acc_flat';

function scope(): RequestScope {
  return { signal: new Cancellation(), deadline: Date.now() + 60_000 };
}

function setup(t: { teardown(fn: () => void | Promise<void>): void }, oplogRetentionMs?: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-flat-'));
  const store = openShardStore(dir, { oplogRetentionMs });
  const waiters = new WaiterRegistry();
  const actor = new InboxActor({ shardId: 0, config: loadConfig({}), store, waiters, sealer: null as never, now: () => Date.now() });
  t.teardown(async () => {
    waiters.drain();
    await actor.reclaimer.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { actor, store };
}

/** `count` messages straight into the store, in a few transactions (the seeding the bench does too). */
async function seed(store: ShardStore, address: string, count: number, subject: (i: number) => string): Promise<void> {
  const t0 = Date.now() - count;
  for (let done = 0; done < count;) {
    const n = Math.min(5000, count - done);
    await store.transaction(() => {
      for (let i = done; i < done + n; i++) {
        const id = newMessageId(t0 + i);
        const m: MessageRecord = {
          id, inbox: address, from: 'sender@x.test', to: [address], subject: subject(i), date: new Date(t0 + i).toISOString(), text: 'x', html: null,
          headers: {}, attachments: [], otp: null, verification_link: null, read: false, size: 10,
        };
        store.messages.put(m);
        store.messages.putSource(id, Buffer.from(`raw ${i}`), 1, address);
      }
    });
    done += n;
  }
}

async function createInbox(actor: InboxActor, address: string): Promise<void> {
  await actor.handle({ type: 'inbox.create', accountId: ACCOUNT, address, domain: 'x.test' }, scope());
}

function list(actor: InboxActor, address: string, query: Record<string, unknown>): { count: number; data: MessageSummary[]; next_before?: string } {
  return JSON.parse(actor.handle({ type: 'message.list_view', accountId: ACCOUNT, address, limit: 10, unreadOnly: false, ...query }, scope()) as string);
}

test('flat costs - a search reads at most LIST_SCAN_MAX messages per request and says where to go on', async (t) => {
  const { actor, store } = setup(t);
  const address = 'big@x.test';
  await createInbox(actor, address);
  const total = LIST_SCAN_MAX * 2 + 500;
  // Only the oldest message matches: a scan of everything would be needed to find it.
  await seed(store, address, total, (i) => (i === 0 ? 'needle' : `hay ${i}`));
  let page = list(actor, address, { query: 'needle' });
  t.is(page.count, 0, 'the first request stops at its budget');
  t.truthy(page.next_before);
  let requests = 1;
  while (page.count === 0 && page.next_before !== undefined && requests < 10) {
    page = list(actor, address, { query: 'needle', before: page.next_before });
    requests++;
  }
  t.is(page.data[0]?.subject, 'needle');
  t.is(requests, Math.ceil(total / LIST_SCAN_MAX), 'each request read one budget of messages');
  t.is(page.next_before, undefined, 'the end of the inbox');
  // An unfiltered page reads only what it shows.
  const newest = list(actor, address, { limit: 3 });
  t.is(newest.count, 3);
  t.is(newest.data[0]!.subject, `hay ${total - 1}`);
});

test('flat costs - a deleted inbox goes in bounded batches while other inboxes are read between them', async (t) => {
  const { actor, store } = setup(t);
  const big = 'large@x.test';
  const other = 'other@x.test';
  await createInbox(actor, big);
  await createInbox(actor, other);
  const count = RECLAIM_BATCH * 20;
  await seed(store, big, count, (i) => `m ${i}`);
  await seed(store, other, 3, (i) => `o ${i}`);
  const sourcesBefore = store.messages.sourceCount();
  await actor.handle({ type: 'inbox.delete', accountId: ACCOUNT, address: big }, scope());
  // Gone from the API at once, while its messages are still being removed.
  await t.throwsAsync(Promise.resolve().then(() => actor.handle({ type: 'inbox.get', accountId: ACCOUNT, address: big }, scope())), { message: /not found/ });
  t.true(actor.reclaimer.removed < count, 'the delete answered before its messages were all removed');
  // Reads of another inbox run between the batches: each read sees the removal still in progress.
  let readsDuring = 0;
  while (actor.reclaimer.pending > 0 && readsDuring < 10_000) {
    t.is(list(actor, other, {}).count, 3);
    readsDuring++;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  t.true(readsDuring >= 5, `reads ran between the batches (${readsDuring})`);
  t.is(actor.reclaimer.removed, count);
  t.is(store.messages.sourceCount(), sourcesBefore - count, 'their sources went with them');
  t.is(store.inboxes.tombstones.get(big), undefined, 'the tombstone went with the last batch');
});

test('flat costs - an interrupted deletion resumes from its tombstone when the store opens again', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-flat-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let store = openShardStore(dir);
  let actor = new InboxActor({ shardId: 0, config: loadConfig({}), store, waiters: new WaiterRegistry(), sealer: null as never, now: () => Date.now() });
  await createInbox(actor, 'gone@x.test');
  await seed(store, 'gone@x.test', RECLAIM_BATCH * 5, (i) => `g ${i}`);
  await actor.handle({ type: 'inbox.delete', accountId: ACCOUNT, address: 'gone@x.test' }, scope());
  await actor.reclaimer.close();
  const left = store.messages.count();
  t.true(left > 0, 'stopped halfway');
  await store.close();
  store = openShardStore(dir);
  actor = new InboxActor({ shardId: 0, config: loadConfig({}), store, waiters: new WaiterRegistry(), sealer: null as never, now: () => Date.now() });
  actor.reclaimer.resume();
  await actor.reclaimer.finish('gone@x.test');
  t.is(store.messages.count(), 0);
  await actor.reclaimer.close();
  await store.close();
});

test('flat costs - with no follower to feed, the oplog is trimmed to each slot newest entry', async (t) => {
  const { actor, store } = setup(t, 0);
  const a = 'trim-a@x.test';
  await createInbox(actor, a);
  await seed(store, a, 50, (i) => `t ${i}`);
  const slot = slotOf(a);
  const seq = store.oplog.seq(slot);
  t.true(seq > 100, 'every write was logged');
  await new Promise((resolve) => setTimeout(resolve, 5));
  // The shard's own timer may be trimming already: a second call runs after it, over every entry.
  await store.oplog.trim();
  await store.oplog.trim();
  const left = [...store.oplog.db.getKeys({ start: [slot, 0], end: [slot, 2 ** 32] })];
  t.deepEqual(left, [[slot, seq]], 'the newest entry keeps the sequence number');
  t.is(store.oplog.seq(slot), seq);
});
