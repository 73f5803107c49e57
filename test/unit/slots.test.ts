import test from 'ava';
import { assignPrimaries, balanceBounds, planMoves } from '../../src/cluster/assignment.js';
import { decodeSlotMap, emptySlotMap, encodeSlotMap, primaryCounts, withPrimary, type SlotMap } from '../../src/cluster/slot-map.js';
import { SLOT_COUNT, slotOf } from '../../src/cluster/slots.js';

const names = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `shard-${i + from}`);

function mapOf(primaries: (string | null)[]): SlotMap {
  return primaries.map((primary, slot) => ({ slot, primary, followers: [], epoch: primary ? 1 : 0, isr: [] }));
}

function assertBalanced(t: import('ava').ExecutionContext, primaries: (string | null)[], members: string[]) {
  const counts = primaryCounts(mapOf(primaries));
  const fair = SLOT_COUNT / members.length;
  for (const m of members) {
    const c = counts.get(m) ?? 0;
    t.true(Math.abs(c - fair) <= Math.max(fair * 0.05, 1), `${m} holds ${c}, fair share ${fair}`);
  }
}

test('slots - the first four bytes of SHA-256, big-endian, modulo 1024', (t) => {
  // SHA-256("") = e3b0c442…: 0xe3b0c442 % 1024 = 0x042.
  t.is(slotOf(''), 0x42);
  t.is(slotOf('a@mailcue.test'), 0x144be3e7 % 1024);
  t.is(SLOT_COUNT, 1024);
});

test('slots - keys spread over every slot', (t) => {
  const seen = new Set<number>();
  for (let i = 0; i < 20_000; i++) seen.add(slotOf(`user${i}@mailcue.test`));
  t.is(seen.size, SLOT_COUNT);
});

test('slot map - survives its wire form and bumps the epoch when the primary changes', (t) => {
  const map = withPrimary(emptySlotMap(), 7, 'a');
  const back = decodeSlotMap(encodeSlotMap(map));
  t.deepEqual(back, map);
  t.is(back[7]!.epoch, 1);
  t.is(withPrimary(back, 7, 'b')[7]!.epoch, 2);
  t.throws(() => decodeSlotMap('[]'));
});

test('assignment - a fresh map is balanced within ±5 % for 1 to 9 members, whatever their order', (t) => {
  for (let n = 1; n <= 9; n++) {
    const members = names(n);
    const a = assignPrimaries({ map: emptySlotMap(), eligible: members, live: members });
    t.false(a.includes(null));
    assertBalanced(t, a, members);
    t.deepEqual(assignPrimaries({ map: emptySlotMap(), eligible: [...members].reverse(), live: members }), a);
  }
});

test('assignment - bounds stay satisfiable with many members', (t) => {
  const { lo, hi } = balanceBounds(1024, 100);
  t.true(lo * 100 <= 1024 && hi * 100 >= 1024);
});

test('assignment - a joining member takes slots only for itself, about its fair share, mostly the ones rendezvous gives it', (t) => {
  const three = names(3);
  const before = mapOf(assignPrimaries({ map: emptySlotMap(), eligible: three, live: three }));
  const four = names(4);
  const after = assignPrimaries({ map: before, eligible: four, live: four });
  assertBalanced(t, after, four);
  const moves = planMoves(before, after);
  for (const m of moves) t.is(m.to, 'shard-3');
  const { lo, hi } = balanceBounds(1024, 4);
  t.true(moves.length >= lo && moves.length <= hi, String(moves.length));
  // Rendezvous alone over four members: the slots the newcomer wins.
  const pure = assignPrimaries({ map: emptySlotMap(), eligible: four, live: four });
  const agreeing = moves.filter((m) => pure[m.slot] === 'shard-3').length;
  t.true(agreeing / moves.length > 0.8, `${agreeing}/${moves.length}`);
});

test('assignment - a draining member gives away exactly its slots; the others keep theirs', (t) => {
  const four = names(4);
  const before = mapOf(assignPrimaries({ map: emptySlotMap(), eligible: four, live: four }));
  const held = primaryCounts(before).get('shard-2')!;
  const after = assignPrimaries({ map: before, eligible: ['shard-0', 'shard-1', 'shard-3'], live: four });
  assertBalanced(t, after, ['shard-0', 'shard-1', 'shard-3']);
  const moves = planMoves(before, after);
  t.is(moves.length, held);
  for (const m of moves) t.is(m.from, 'shard-2');
});

test('assignment - the slots of a member without a lease stay with it (its data is nowhere else)', (t) => {
  const three = names(3);
  const before = mapOf(assignPrimaries({ map: emptySlotMap(), eligible: three, live: three }));
  const after = assignPrimaries({ map: before, eligible: ['shard-0', 'shard-1'], live: ['shard-0', 'shard-1'] });
  t.deepEqual(planMoves(before, after), []);
});

test('assignment - any sequence of joins and drains stays balanced and never moves a slot between two bystanders', (t) => {
  let members = names(2);
  let map = mapOf(assignPrimaries({ map: emptySlotMap(), eligible: members, live: members }));
  let next = 2;
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let step = 0; step < 12; step++) {
    const grow = members.length < 3 || (members.length < 7 && rand() < 0.6);
    const changed = grow ? `shard-${next++}` : members[Math.floor(rand() * members.length)]!;
    members = grow ? [...members, changed] : members.filter((m) => m !== changed);
    const target = assignPrimaries({ map, eligible: members, live: [...members, changed] });
    assertBalanced(t, target, members);
    for (const m of planMoves(map, target)) t.true(m.to === changed || m.from === changed, `${m.from} → ${m.to} on ${grow ? 'join' : 'drain'} of ${changed}`);
    map = mapOf(target);
  }
});
