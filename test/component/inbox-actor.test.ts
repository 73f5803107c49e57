// Component: the InboxActor on a real LMDB store. Deliveries to several recipients of one slot
// share one stored source, a long-poll parked between a delivery's commit and its wake-up is
// never answered with the message its caller already has (a latch holds the actor in that gap),
// and a delivery an inbox already holds (same ingest digest) is not stored there again.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InboxActor } from '../../src/actors/inbox-actor.js';
import type { ActorContext } from '../../src/actors/context.js';
import type { MessageSummary, ParsedMessage } from '../../src/contract/model.js';
import type { DeliverResult, RequestScope, WaitResult } from '../../src/contract/results.js';
import { WaiterRegistry } from '../../src/actors/waiters.js';
import { loadConfig } from '../../src/config/config.js';
import { openShardStore, type ShardStore } from '../../src/storage/shard-store.js';
import { applySlotEntries, readSlotPage } from '../../src/storage/slot-data.js';
import { slotOf } from '../../src/cluster/slots.js';
import { Cancellation } from '../../src/util/cancel.js';

const ACCOUNT = 'acc_test';

function parsed(subject: string): ParsedMessage {
  return { from: 'f@x.test', to: [], subject, text: subject, html: null, headers: {}, attachments: [], otp: null, verification_link: null, size: 10 };
}

function scope(): RequestScope {
  return { signal: new Cancellation(), deadline: Date.now() + 60_000 };
}

/** An actor on a fresh store whose transactions, once committed, wait for `gate` when one is set. */
function setup(t: { teardown(fn: () => void | Promise<void>): void }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-actor-'));
  const real = openShardStore(dir);
  const latch: { gate: Promise<void> | null } = { gate: null };
  const store: ShardStore = {
    ...real,
    transaction: async (work) => {
      const result = await real.transaction(work);
      if (latch.gate) await latch.gate;
      return result;
    },
  };
  const waiters = new WaiterRegistry();
  const ctx: ActorContext = { shardId: 0, config: loadConfig({}), store, waiters, sealer: null as never, now: () => Date.now() };
  const actor = new InboxActor(ctx);
  t.teardown(async () => {
    waiters.drain();
    await actor.reclaimer.close();
    await real.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { actor, store: real, latch, waiters };
}

async function createInbox(actor: InboxActor, address: string): Promise<void> {
  await actor.handle({ type: 'inbox.create', accountId: ACCOUNT, address, domain: 'x.test' }, scope());
}

function deliver(actor: InboxActor, addresses: string[], subject: string, raw = Buffer.from(`Subject: ${subject}\r\n\r\n${subject}`), digest?: string) {
  return actor.handle({ type: 'inbox.deliver', addresses, message: parsed(subject), raw, digest }, scope()) as Promise<DeliverResult>;
}

test('inbox actor - a long-poll parked with since=X between the commit of X and its wake-up answers the next message, not X', async (t) => {
  const { actor, latch, waiters } = setup(t);
  const address = 'race@x.test';
  await createInbox(actor, address);

  let release!: () => void;
  latch.gate = new Promise((r) => (release = r));
  const first = deliver(actor, [address], 'first');
  // X is committed and visible to reads, but the delivery has not yet woken anyone.
  let listed: MessageSummary[] = [];
  while (listed.length === 0) {
    listed = (await actor.handle({ type: 'message.list', accountId: ACCOUNT, address, limit: 10, unreadOnly: false }, scope())) as MessageSummary[];
    if (listed.length === 0) await new Promise((r) => setImmediate(r));
  }
  const x = listed[0]!.id;
  const wait = actor.handle({ type: 'message.wait', accountId: ACCOUNT, address, since: x, match: 'any', timeoutMs: 30_000 }, scope()) as Promise<WaitResult>;
  t.is(waiters.size, 1, 'nothing newer than X yet: the long-poll is parked');

  latch.gate = null;
  release();
  t.is((await first).id, x);
  t.is(waiters.size, 1, 'the wake-up of X skipped the waiter that already has X');

  const second = await deliver(actor, [address], 'second');
  const answer = await wait;
  t.false(answer.timed_out);
  t.is(answer.message?.id, second.id);
  t.not(answer.message?.id, x);
});

/** An address at x.test in the given slot (searched in order, so always the same one). */
function addressInSlot(slot: number, not: string): string {
  for (let i = 0; i < 100_000; i++) {
    const address = `s${i}@x.test`;
    if (address !== not && slotOf(address) === slot) return address;
  }
  throw new Error(`no address in slot ${slot}`);
}

test('inbox actor - one delivery to several inboxes of a shard stores the raw source once per slot of its recipients, until the last copy there goes', async (t) => {
  const { actor, store } = setup(t);
  // a and b share a slot; c is in another: its copy moves with its slot (keys start with the slot).
  const a = 'a@x.test';
  const b = addressInSlot(slotOf(a), a);
  const c = slotOf('c@x.test') === slotOf(a) ? addressInSlot((slotOf(a) + 1) % 1024, a) : 'c@x.test';
  const addresses = [a, b, c];
  for (const address of addresses) await createInbox(actor, address);
  const raw = Buffer.alloc(64 * 1024, 'x');
  const result = await deliver(actor, [...addresses, 'gone@x.test'], 'shared', raw);
  t.deepEqual(result.delivered, addresses);
  t.deepEqual(result.gone, ['gone@x.test']);
  t.is(store.messages.sourceCount(), 2, "one in a and b's slot, one in c's");
  const counts = () => [...store.oplog.database('raw_refs').getRange({})].map(({ key, value }) => [key, value]);
  t.deepEqual(counts(), [[[slotOf(a), result.id], 2]], "only a and b's shared source is counted; c's, of one message, is not");
  for (const address of addresses) {
    const bytes = (await actor.handle({ type: 'message.raw', accountId: ACCOUNT, address, id: result.id }, scope())) as Uint8Array;
    t.true(Buffer.from(bytes).equals(raw));
  }
  await actor.handle({ type: 'message.delete', accountId: ACCOUNT, address: a, id: result.id }, scope());
  t.is(store.messages.sourceCount(), 2, 'b still holds the source of its slot');
  t.deepEqual(counts(), [], 'a count of one is no count');
  await actor.handle({ type: 'inbox.delete', accountId: ACCOUNT, address: b }, scope());
  await actor.reclaimer.finish(b);
  t.is(store.messages.sourceCount(), 1, "c's copy is left");
  const left = (await actor.handle({ type: 'message.raw', accountId: ACCOUNT, address: c, id: result.id }, scope())) as Uint8Array;
  t.is(left.length, raw.length);
  await actor.handle({ type: 'message.delete', accountId: ACCOUNT, address: c, id: result.id }, scope());
  t.is(store.messages.sourceCount(), 0);
});

/** The ingest digest the front would send (src/ingress/ingest-digest.ts); its value does not matter here. */
const DIGEST = 'd1'.repeat(32);

function messageIds(actor: InboxActor, address: string): string[] {
  const list = actor.handle({ type: 'message.list', accountId: ACCOUNT, address, limit: 100, unreadOnly: false }, scope()) as MessageSummary[];
  return list.map((m) => m.id);
}

/** What deliveries set off besides storing: outbox entries (in the transaction), sends, change-feed notes. */
function effects(actor: InboxActor) {
  const seen = { inTransaction: [] as string[], afterCommit: [] as string[], changed: [] as string[] };
  actor.inTransaction.push((m) => seen.inTransaction.push(m.inbox));
  actor.afterCommit.push((m) => seen.afterCommit.push(m.inbox));
  actor.changed.push((_account, address) => seen.changed.push(address));
  return seen;
}

test('inbox actor - a retry after a 451 stores only where the first attempt did not: no second copy, webhook or wake-up where it did', async (t) => {
  const { actor, waiters } = setup(t);
  const [a, b] = ['kept@x.test', 'missed@x.test'];
  await createInbox(actor, a);
  await createInbox(actor, b);
  // The first attempt committed on a's shard; another shard failed, so the sender got 451.
  const first = await deliver(actor, [a], 'once', undefined, DIGEST);
  t.deepEqual(first.delivered, [a]);

  const seen = effects(actor);
  const waitA = actor.handle({ type: 'message.wait', accountId: ACCOUNT, address: a, since: first.id, match: 'any', timeoutMs: 30_000 }, scope()) as Promise<WaitResult>;
  const waitB = actor.handle({ type: 'message.wait', accountId: ACCOUNT, address: b, since: null, match: 'any', timeoutMs: 30_000 }, scope()) as Promise<WaitResult>;
  t.is(waiters.size, 2);

  const retry = await deliver(actor, [a, b], 'once', undefined, DIGEST);
  t.deepEqual(retry.delivered, [b]);
  t.deepEqual(retry.duplicates, [a]);
  t.deepEqual(retry.gone, []);
  t.deepEqual(messageIds(actor, a), [first.id], 'a keeps its one copy');
  t.deepEqual(messageIds(actor, b), [retry.id]);
  const inboxA = (await actor.handle({ type: 'inbox.get', accountId: ACCOUNT, address: a }, scope())) as { message_count: number; unread_count: number };
  t.deepEqual([inboxA.message_count, inboxA.unread_count], [1, 1]);
  t.deepEqual(seen, { inTransaction: [b], afterCommit: [b], changed: [b] }, 'webhooks and the feed hear of b only');
  t.is((await waitB).message?.id, retry.id);
  t.is(waiters.size, 1, 'the wait on a, which already had the message, stays parked');
  waiters.drain();
  t.true((await waitA).timed_out);
});

test('inbox actor - the same delivery twice in one batch stores one copy and answers both; without a digest each is stored', async (t) => {
  const { actor, store } = setup(t);
  const address = 'twice@x.test';
  await createInbox(actor, address);
  const raw = Buffer.from('Subject: twice\r\n\r\nbody');
  const [one, two] = await Promise.all([deliver(actor, [address], 'twice', raw, DIGEST), deliver(actor, [address], 'twice', raw, DIGEST)]);
  t.deepEqual([one.delivered, one.duplicates], [[address], []]);
  t.deepEqual([two.delivered, two.duplicates], [[], [address]]);
  t.deepEqual(messageIds(actor, address), [one.id]);
  t.is(store.messages.sourceCount(), 1, 'no source was stored for the duplicate');

  // A front that sends no digest (older than idempotent ingest): stored as before.
  await deliver(actor, [address], 'twice', raw);
  await deliver(actor, [address], 'twice', raw);
  t.is(messageIds(actor, address).length, 3);
});

test('inbox actor - a digest goes with its message and with its inbox: the same mail is stored again after either is deleted', async (t) => {
  const { actor, store } = setup(t);
  const address = 'again@x.test';
  const digests = () => store.oplog.database('message_digests').getKeysCount();
  await createInbox(actor, address);
  const first = await deliver(actor, [address], 'again', undefined, DIGEST);
  t.true(digests() > 0);
  await actor.handle({ type: 'message.delete', accountId: ACCOUNT, address, id: first.id }, scope());
  t.is(digests(), 0);
  const second = await deliver(actor, [address], 'again', undefined, DIGEST);
  t.deepEqual(second.delivered, [address]);
  t.deepEqual((await deliver(actor, [address], 'again', undefined, DIGEST)).duplicates, [address]);

  await actor.handle({ type: 'inbox.delete', accountId: ACCOUNT, address }, scope());
  // The messages of a deleted inbox go in batches after the delete answers (issue 37).
  await actor.reclaimer.finish(address);
  t.is(digests(), 0);
  await createInbox(actor, address);
  const third = await deliver(actor, [address], 'again', undefined, DIGEST);
  t.deepEqual(third.delivered, [address]);
  t.deepEqual(messageIds(actor, address), [third.id]);
});

test("inbox actor - digest entries live in the inbox's slot: its oplog and a slot snapshot carry them to another shard", async (t) => {
  const { actor, store } = setup(t);
  const address = 'moving@x.test';
  await createInbox(actor, address);
  const first = await deliver(actor, [address], 'moving', undefined, DIGEST);
  const slot = slotOf(address);
  t.true(store.oplog.read(slot, 0, 1 << 24).some(({ entry }) => entry.db === 'message_digests'), 'logged to the slot');

  const other = setup(t);
  await applySlotEntries(other.store, readSlotPage(store, slot, null, 1 << 24).records);
  const retry = await deliver(other.actor, [address], 'moving', undefined, DIGEST);
  t.deepEqual(retry.duplicates, [address], 'the new owner knows the message');
  t.deepEqual(messageIds(other.actor, address), [first.id]);
});
