// Unit: one controller's map steps go one at a time. Four moves that switch their slots at once
// each land at their first compare-and-swap of the map (an in-memory store that compares revisions
// as etcd does, with a round trip's delay), instead of losing the compare to each other.
import test from 'ava';
import { switchOwner, type MapWriter } from '../../src/cluster/move-steps.js';
import type { SlotMap } from '../../src/cluster/slot-map.js';
import type { SlotMapStore, VersionedMap } from '../../src/cluster/slot-map-store.js';

function writer(map: SlotMap): { w: MapWriter; swaps: () => number; current: () => SlotMap } {
  let stored: VersionedMap = { map, revision: '1' };
  let swaps = 0;
  const trip = () => new Promise((resolve) => setTimeout(resolve, 5));
  const store = {
    async read() {
      await trip();
      return stored;
    },
    async swap(next: SlotMap, revision: string) {
      swaps++;
      await trip();
      if (revision !== stored.revision) return { ok: false, revision: stored.revision };
      stored = { map: next, revision: String(Number(stored.revision) + 1) };
      return { ok: true, revision: stored.revision };
    },
  } as unknown as SlotMapStore;
  const w: MapWriter = { store, known: null, electionKey: undefined, isLeader: true, stillLeads: async () => true };
  return { w, swaps: () => swaps, current: () => stored.map };
}

test('move steps - four switches at once each land at their first swap of the map', async (t) => {
  const map: SlotMap = Array.from({ length: 8 }, (_, slot) => ({ slot, primary: 'a', followers: ['b'], epoch: 1, isr: ['a', 'b'] }));
  const { w, swaps, current } = writer(map);
  await Promise.all([0, 1, 2, 3].map((slot) => switchOwner(w, { slot, from: 'a', to: 'b' }, true)));
  t.is(swaps(), 4);
  t.deepEqual(current().slice(0, 4).map((e) => [e.primary, e.epoch]), [['b', 2], ['b', 2], ['b', 2], ['b', 2]]);
  t.is(current()[4]!.primary, 'a');
});

test('move steps - a step that fails does not stop the ones after it', async (t) => {
  const map: SlotMap = Array.from({ length: 2 }, (_, slot) => ({ slot, primary: 'a', followers: ['b'], epoch: 1, isr: slot === 0 ? ['a'] : ['a', 'b'] }));
  const { w, current } = writer(map);
  const [first, second] = await Promise.allSettled([0, 1].map((slot) => switchOwner(w, { slot, from: 'a', to: 'b' }, true)));
  t.is(first!.status, 'rejected', 'b is not in slot 0\'s in-sync set');
  t.is(second!.status, 'fulfilled');
  t.is(current()[1]!.primary, 'b');
});
