// Unit: the front's cache of recently admitted credentials (DESIGN §7), with an injected clock and
// a fake notice stream (our own seams).
import test from 'ava';
import { ADMITTED_MAX, AdmittedCredentials } from '../../src/security/admitted-credentials.js';
import { PerIpWindow } from '../../src/front/oauth/per-ip-window.js';

function cache() {
  const clock = { now: 1_000_000 };
  const up = new Set<number | string>([0, 1]);
  const c = new AdmittedCredentials((accountId) => (accountId.endsWith('1') ? 1 : 0), (shard) => up.has(shard), () => clock.now);
  return { c, clock, up };
}

test('admitted credentials - a credential is trusted for 60 s after its last admission', (t) => {
  const { c, clock } = cache();
  t.is(c.lookup('h'), undefined);
  c.remember('h', 'acc_0', 'growth', 0);
  t.is(c.lookup('h')?.accountId, 'acc_0');
  clock.now += 59_999;
  t.truthy(c.lookup('h'));
  c.remember('h', 'acc_0', 'free', 0);
  clock.now += 59_999;
  t.is(c.lookup('h')?.plan, 'free');
  clock.now += 1;
  t.is(c.lookup('h'), undefined);
});

test('admitted credentials - a rotation or plan change drops the account; a late answer from before a rotation is not kept', (t) => {
  const { c } = cache();
  c.remember('a', 'acc_0', 'growth', 3);
  c.remember('b', 'acc_1', 'growth', 0);
  c.changed('acc_0', 4);
  t.is(c.lookup('a'), undefined);
  t.truthy(c.lookup('b'));
  c.remember('a', 'acc_0', 'growth', 3);
  t.is(c.lookup('a'), undefined, 'admitted under generation 3, answered after the rotation to 4');
  c.remember('a2', 'acc_0', 'growth', 4);
  t.truthy(c.lookup('a2'));
});

test('admitted credentials - nothing of a shard is trusted while its notices cannot be heard', (t) => {
  const { c, up } = cache();
  c.remember('a', 'acc_0', 'growth', 0);
  c.remember('b', 'acc_1', 'growth', 0);
  up.delete(1);
  t.is(c.lookup('b'), undefined);
  c.remember('b', 'acc_1', 'growth', 0);
  up.add(1);
  t.is(c.lookup('b'), undefined, 'admitted while deaf: not remembered');
  c.forgetShard(0);
  t.is(c.lookup('a'), undefined);
});

test('admitted credentials - bounded: the oldest entry goes first', (t) => {
  const { c } = cache();
  for (let i = 0; i <= ADMITTED_MAX; i++) c.remember(`h${i}`, 'acc_0', 'growth', 0);
  t.is(c.size, ADMITTED_MAX);
  t.is(c.lookup('h0'), undefined);
  t.truthy(c.lookup(`h${ADMITTED_MAX}`));
});

test('per-ip window - counts per address per UTC minute and answers the seconds to wait', (t) => {
  const clock = { now: 60_000 * 100 + 45_000 };
  const w = new PerIpWindow(2, () => clock.now);
  t.is(w.take('1.1.1.1'), 0);
  t.is(w.take('1.1.1.1'), 0);
  t.is(w.take('1.1.1.1'), 15);
  t.is(w.take('2.2.2.2'), 0);
  clock.now += 15_000;
  t.is(w.take('1.1.1.1'), 0, 'a new minute');
});
