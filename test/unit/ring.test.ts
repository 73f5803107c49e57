import test from 'ava';
import { Ring } from '../../src/rpc/ring.js';

test('ring - the same key always maps to the same shard, whatever the map order', (t) => {
  const a = new Ring([0, 1, 2]);
  const b = new Ring([2, 0, 1]);
  for (let i = 0; i < 1000; i++) t.is(a.shardFor(`user${i}@mailcue.test`), b.shardFor(`user${i}@mailcue.test`));
});

test('ring - keys spread over every shard', (t) => {
  const ring = new Ring([0, 1, 2, 3]);
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < 8000; i++) counts[ring.shardFor(`k${i}`)]!++;
  for (const c of counts) t.true(c > 1500 && c < 2500, String(counts));
});

test('ring - adding a shard moves only the keys the new shard wins', (t) => {
  const before = new Ring([0, 1, 2]);
  const after = new Ring([0, 1, 2, 3]);
  let moved = 0;
  for (let i = 0; i < 4000; i++) {
    const k = `key-${i}`;
    if (before.shardFor(k) !== after.shardFor(k)) {
      moved++;
      t.is(after.shardFor(k), 3);
    }
  }
  t.true(moved > 600 && moved < 1400, String(moved));
});
