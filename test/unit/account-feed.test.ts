// The per-shard account change feed behind GET /v1/events: cursors, parking, isolation between
// accounts, and the reset answers that make a client reload instead of missing changes.
import test from 'ava';
import { AccountFeed } from '../../src/actors/account-feed.js';
import { Cancellation } from '../../src/util/cancel.js';

const never = new Cancellation();

test('account feed - a cursor, then the changes after it, deduplicated, for that account only', (t) => {
  const feed = new AccountFeed();
  const start = feed.watch('acc_a', null, null, 0, never) as { epoch: string; seq: number; reset: boolean; changes: unknown[] };
  t.deepEqual(start, { epoch: feed.epoch, seq: 0, reset: false, changes: [] });
  feed.note('acc_a', { kind: 'inbox', inbox: 'x@mailcue.test' });
  feed.note('acc_b', { kind: 'inbox', inbox: 'y@mailcue.test' });
  feed.note('acc_a', { kind: 'inbox', inbox: 'x@mailcue.test' });
  feed.note('acc_a', { kind: 'domains' });
  const answer = feed.watch('acc_a', 0, feed.epoch, 1000, never);
  t.deepEqual(answer, { epoch: feed.epoch, seq: 4, reset: false, changes: [{ kind: 'inbox', inbox: 'x@mailcue.test' }, { kind: 'domains' }] });
  t.is(feed.size, 0, 'answered at once, nothing parked');
});

test('account feed - a parked watch wakes on the account\'s next change, not on another account\'s', async (t) => {
  const feed = new AccountFeed();
  const parked = feed.watch('acc_a', 0, feed.epoch, 10_000, never) as Promise<unknown>;
  t.is(feed.size, 1);
  feed.note('acc_b', { kind: 'webhooks' });
  t.is(feed.size, 1, 'still parked');
  feed.note('acc_a', { kind: 'webhooks' });
  t.deepEqual(await parked, { epoch: feed.epoch, seq: 2, reset: false, changes: [{ kind: 'webhooks' }] });
  t.is(feed.size, 0);
});

test('account feed - a cancelled or timed-out watch answers empty and leaves nothing parked', async (t) => {
  const feed = new AccountFeed();
  const cancel = new Cancellation();
  const parked = feed.watch('acc_a', 0, feed.epoch, 10_000, cancel) as Promise<{ changes: unknown[] }>;
  cancel.abort();
  t.deepEqual((await parked).changes, []);
  const timed = feed.watch('acc_a', 0, feed.epoch, 5, never) as Promise<{ changes: unknown[] }>;
  t.deepEqual((await timed).changes, []);
  t.is(feed.size, 0);
});

test('account feed - another epoch (a restarted shard), a cursor from the future or one the ring no longer reaches: reset', (t) => {
  const feed = new AccountFeed();
  t.true((feed.watch('acc_a', 0, 'someone-else', 1000, never) as { reset: boolean }).reset);
  t.true((feed.watch('acc_a', 5, feed.epoch, 1000, never) as { reset: boolean }).reset);
  for (let i = 0; i < 5000; i++) feed.note('acc_b', { kind: 'domains' });
  t.true((feed.watch('acc_a', 1, feed.epoch, 1000, never) as { reset: boolean }).reset);
  t.false((feed.watch('acc_a', 4000, feed.epoch, 0, never) as { reset: boolean }).reset);
});

test('account feed - drain answers every parked watch', async (t) => {
  const feed = new AccountFeed();
  const a = feed.watch('acc_a', 0, feed.epoch, 10_000, never) as Promise<unknown>;
  const b = feed.watch('acc_b', 0, feed.epoch, 10_000, never) as Promise<unknown>;
  feed.drain();
  await Promise.all([a, b]);
  t.is(feed.size, 0);
});
