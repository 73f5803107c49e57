// The failover rules of DESIGN.md §8 as pure functions (src/cluster/failover.ts): only in-sync
// copies are promoted, never an unclean election, restarted and replaced members leave the in-sync
// sets first, and follower copies are added before any is removed.
import test from 'ava';
import { copiesUnsettled, failOver, followersAddFirst, needsFailover, type Membership } from '../../src/cluster/failover.js';
import { emptySlotMap, type SlotEntry } from '../../src/cluster/slot-map.js';

const entry = (primary: string, followers: string[], isr: string[], epoch = 4): SlotEntry => ({ slot: 7, primary, followers, epoch, isr });
const members = (live: string[], renewed: string[] = [], reborn: string[] = []): Membership => ({ live: new Set(live), renewed: new Set(renewed), reborn: new Set(reborn) });
const at = (positions: Record<string, [number, number]>) => (m: string) => (positions[m] ? { epoch: positions[m]![0], seq: positions[m]![1] } : undefined);

test('failover - a dead primary hands the slot to the in-sync follower with the highest (epoch, seq), at the next epoch', (t) => {
  const next = failOver(entry('a', ['b', 'c'], ['a', 'b', 'c']), members(['b', 'c']), at({ b: [4, 10], c: [4, 12] }));
  t.is(next.primary, 'c');
  t.is(next.epoch, 5);
  t.deepEqual(next.isr, ['c', 'b']);
  t.deepEqual(next.followers, ['b']);
});

test('failover - a follower outside the in-sync set is never promoted, however far it got', (t) => {
  const next = failOver(entry('a', ['b', 'c'], ['a', 'b']), members(['b', 'c']), at({ b: [4, 3], c: [4, 99] }));
  t.is(next.primary, 'b');
});

test('failover - no live in-sync copy: the slot waits for it (no unclean election), and comes back with it', (t) => {
  const e = entry('a', ['b'], ['a']);
  const waiting = failOver(e, members(['b']), at({ b: [4, 99] }));
  t.is(waiting, e, 'unchanged: primary a, in-sync set [a]');
  // a returns on its own data directory (a new session): the last in-sync copy serves again, at a new epoch.
  const back = failOver(e, members(['a', 'b'], ['a']), at({}));
  t.is(back.primary, 'a');
  t.is(back.epoch, 5);
  // a returns with an empty directory: it holds nothing; the slot stays without an in-sync copy.
  const empty = failOver(e, members(['a', 'b'], ['a'], ['a']), at({}));
  t.deepEqual(empty.isr, []);
  t.not(empty.primary, 'b');
});

test('failover - a restarted primary (new session) gives the slot to another in-sync copy first; a replaced disk leaves every set', (t) => {
  const restarted = failOver(entry('a', ['b'], ['a', 'b']), members(['a', 'b'], ['a']), at({}));
  t.is(restarted.primary, 'b');
  t.deepEqual(restarted.isr, ['b']);
  const follower = failOver(entry('a', ['b', 'c'], ['a', 'b', 'c']), members(['a', 'b', 'c'], [], ['c']), at({}));
  t.is(follower.primary, 'a');
  t.is(follower.epoch, 4, 'no epoch change when the primary stays');
  t.deepEqual(follower.isr, ['a', 'b']);
});

test('failover - needsFailover lists only slots the rules change', (t) => {
  const map = emptySlotMap().map((e) => (e.slot === 3 ? { ...e, primary: 'a', followers: ['b'], isr: ['a', 'b'], epoch: 1 } : e.slot === 4 ? { ...e, primary: 'b', followers: ['a'], isr: ['b', 'a'], epoch: 1 } : e));
  t.deepEqual(needsFailover(map, members(['a', 'b'])), []);
  t.deepEqual(needsFailover(map, members(['b'])).map((f) => f.slot), [3, 4]);
});

test('followers - added before removed: an old in-sync follower stays until every wanted one is in sync', (t) => {
  const map = emptySlotMap().map((e) => (e.slot === 0 ? { ...e, primary: 'a', followers: ['b'], isr: ['a', 'b'], epoch: 1 } : e));
  const want = map.map((e) => (e.slot === 0 ? ['c'] : []));
  const target = map.map((e) => e.primary);
  t.deepEqual(followersAddFirst(map, want, target, new Set(['a', 'b', 'c']))[0], ['c', 'b']);
  const joined = map.map((e) => (e.slot === 0 ? { ...e, followers: ['c', 'b'], isr: ['a', 'b', 'c'] } : e));
  t.deepEqual(followersAddFirst(joined, want, target, new Set(['a', 'b', 'c']))[0], ['c']);
});

test('followers - a pass is needed again until the extra copy a move kept is dropped, and not after', (t) => {
  // A move gave the slot from a to b and kept a as a follower: three copies in sync where two are wanted.
  const live = new Set(['a', 'b', 'c']);
  const moved = emptySlotMap().map((e) => (e.slot === 0 ? { ...e, primary: 'b', followers: ['c', 'a'], isr: ['b', 'a', 'c'], epoch: 2 } : e));
  const want = moved.map((e) => (e.slot === 0 ? ['c'] : []));
  const target = moved.map((e) => e.primary);
  t.true(copiesUnsettled(moved, want, target, live), 'every copy in sync, but one too many');
  const trimmed = moved.map((e) => (e.slot === 0 ? { ...e, followers: followersAddFirst(moved, want, target, live)[0]!, isr: ['b', 'c'] } : e));
  t.deepEqual(trimmed[0]!.followers, ['c']);
  t.false(copiesUnsettled(trimmed, want, target, live));
  // A follower still copying (outside the set) needs another look too.
  const copying = trimmed.map((e) => (e.slot === 0 ? { ...e, isr: ['b'] } : e));
  t.true(copiesUnsettled(copying, want, target, live));
});

test('failover - in-sync copies at the same position: a dead primary\'s slots spread over them as rendezvous hashing places them', (t) => {
  const live = members(['b', 'c']);
  const promoted = new Map<string, number>();
  for (let slot = 0; slot < 1024; slot++) {
    const next = failOver({ slot, primary: 'a', followers: ['b', 'c'], epoch: 3, isr: ['a', 'b', 'c'] }, live, at({ b: [3, 10], c: [3, 10] }));
    promoted.set(next.primary!, (promoted.get(next.primary!) ?? 0) + 1);
    // The same answer every time (every controller picks the same).
    t.is(failOver({ slot, primary: 'a', followers: ['c', 'b'], epoch: 3, isr: ['a', 'c', 'b'] }, live, at({ b: [3, 10], c: [3, 10] })).primary, next.primary);
  }
  // By id alone, all 1,024 went to b, and balancing then moved half of them.
  t.true((promoted.get('b') ?? 0) > 400 && (promoted.get('c') ?? 0) > 400, JSON.stringify([...promoted]));
  // A copy further ahead still wins.
  t.is(failOver(entry('a', ['b', 'c'], ['a', 'b', 'c']), live, at({ b: [4, 9], c: [4, 10] })).primary, 'c');
});
