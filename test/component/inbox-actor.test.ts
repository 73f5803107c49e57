// Component: the InboxActor on a real LMDB store. Deliveries to several recipients on one shard
// share one stored source, and a long-poll parked between a delivery's commit and its wake-up is
// never answered with the message its caller already has (a latch holds the actor in that gap).
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
    await real.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { actor, store: real, latch, waiters };
}

async function createInbox(actor: InboxActor, address: string): Promise<void> {
  await actor.handle({ type: 'inbox.create', accountId: ACCOUNT, address, domain: 'x.test' }, scope());
}

function deliver(actor: InboxActor, addresses: string[], subject: string, raw = Buffer.from(`Subject: ${subject}\r\n\r\n${subject}`)) {
  return actor.handle({ type: 'inbox.deliver', addresses, message: parsed(subject), raw }, scope()) as Promise<DeliverResult>;
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

test('inbox actor - one delivery to several inboxes of a shard stores the raw source once, until the last copy goes', async (t) => {
  const { actor, store } = setup(t);
  const addresses = ['a@x.test', 'b@x.test', 'c@x.test'];
  for (const a of addresses) await createInbox(actor, a);
  const raw = Buffer.alloc(64 * 1024, 'x');
  const result = await deliver(actor, [...addresses, 'gone@x.test'], 'shared', raw);
  t.deepEqual(result.delivered, addresses);
  t.deepEqual(result.gone, ['gone@x.test']);
  t.is(store.messages.sourceCount(), 1);
  for (const a of addresses) {
    const bytes = (await actor.handle({ type: 'message.raw', accountId: ACCOUNT, address: a, id: result.id }, scope())) as Uint8Array;
    t.true(Buffer.from(bytes).equals(raw));
  }
  await actor.handle({ type: 'message.delete', accountId: ACCOUNT, address: 'a@x.test', id: result.id }, scope());
  await actor.handle({ type: 'inbox.delete', accountId: ACCOUNT, address: 'b@x.test' }, scope());
  t.is(store.messages.sourceCount(), 1, 'c still holds the source');
  const left = (await actor.handle({ type: 'message.raw', accountId: ACCOUNT, address: 'c@x.test', id: result.id }, scope())) as Uint8Array;
  t.is(left.length, raw.length);
  await actor.handle({ type: 'message.delete', accountId: ACCOUNT, address: 'c@x.test', id: result.id }, scope());
  t.is(store.messages.sourceCount(), 0);
});
