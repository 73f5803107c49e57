// The shard's store of resumable agent-tool streams (issue 36): what a reconnection gets, how it
// waits for an answer not stored yet, and its bounds.
import test from 'ava';
import { EVENT_TTL_MS, MAX_EVENTS_PER_STREAM, MAX_STREAMS_PER_SESSION, SessionEvents } from '../../src/actors/session-events.js';
import type { StreamEvents } from '../../src/contract/results.js';
import { Cancellation } from '../../src/util/cancel.js';

const NEVER = new Cancellation();
const ev = (seq: number, data = `{"n":${seq}}`) => ({ seq, data });

test('session events - a reconnection gets the events after its id, each once, and whether the answer is among them', async (t) => {
  const store = new SessionEvents();
  store.put('acct', 's1', 'aaaa', [ev(2)], false);
  store.put('acct', 's1', 'aaaa', [ev(2), ev(3, '{"result":{}}')], true);
  t.deepEqual(await store.after('acct', 's1', 'aaaa', 1, 1000, NEVER), { events: [ev(2), ev(3, '{"result":{}}')], done: true });
  t.deepEqual(await store.after('acct', 's1', 'aaaa', 2, 1000, NEVER), { events: [ev(3, '{"result":{}}')], done: true });
  // Another session or account, with the same stream id, sees nothing of it.
  t.deepEqual(await store.after('acct', 's2', 'aaaa', 0, 0, NEVER), { events: [], done: false });
  t.deepEqual(await store.after('other', 's1', 'aaaa', 0, 0, NEVER), { events: [], done: false });
  store.drain();
});

test('session events - a reconnection that comes before the answer is stored waits for it, and leaves when cancelled', async (t) => {
  const store = new SessionEvents();
  const waiting = store.after('acct', 's1', 'bbbb', 0, 10_000, NEVER) as Promise<StreamEvents>;
  t.is(store.size, 1);
  store.put('acct', 's1', 'bbbb', [ev(1, '{"answer":true}')], true);
  t.deepEqual(await waiting, { events: [ev(1, '{"answer":true}')], done: true });
  t.is(store.size, 0);
  const cancel = new Cancellation();
  const cancelled = store.after('acct', 's1', 'cccc', 0, 10_000, cancel) as Promise<StreamEvents>;
  cancel.abort();
  t.deepEqual(await cancelled, { events: [], done: false });
  t.is(store.size, 0);
  store.drain();
});

test('session events - bounded per stream and per session, and gone after their TTL', async (t) => {
  let now = 0;
  const store = new SessionEvents(() => now);
  store.put('acct', 's1', 'dddd', Array.from({ length: MAX_EVENTS_PER_STREAM + 5 }, (_, i) => ev(i + 1)), false);
  const kept = (await store.after('acct', 's1', 'dddd', 0, 0, NEVER)).events;
  t.is(kept.length, MAX_EVENTS_PER_STREAM);
  t.is(kept.at(-1)!.seq, MAX_EVENTS_PER_STREAM + 5, 'the newest are kept');
  for (let i = 0; i < MAX_STREAMS_PER_SESSION + 3; i++) store.put('acct', 's1', `s${i}`.padStart(16, '0'), [ev(1)], true);
  t.deepEqual(await store.after('acct', 's1', 'dddd', 0, 0, NEVER), { events: [], done: false }, 'the oldest stream went first');
  now = EVENT_TTL_MS - 1;
  (store as unknown as { sweep(): void }).sweep();
  t.is((await store.after('acct', 's1', `s${MAX_STREAMS_PER_SESSION + 2}`.padStart(16, '0'), 0, 0, NEVER)).events.length, 1);
  now = EVENT_TTL_MS + 1;
  (store as unknown as { sweep(): void }).sweep();
  t.is((await store.after('acct', 's1', `s${MAX_STREAMS_PER_SESSION + 2}`.padStart(16, '0'), 0, 0, NEVER)).events.length, 0, 'expired');
  store.drop('acct', 's1');
  store.drain();
});
