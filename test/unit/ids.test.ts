import test from 'ava';
import { randomHex, randomLocalPart } from '../../src/util/ids.js';

test('randomHex - ids cut from the random pool have their length and never repeat, across refills', (t) => {
  const seen = new Set<string>();
  // 12 bytes each: 2,000 ids span six refills of the 4 KiB pool, one of them mid-id.
  for (let i = 0; i < 2_000; i++) {
    const id = randomHex(12);
    t.regex(id, /^[0-9a-f]{24}$/);
    seen.add(id);
  }
  t.is(seen.size, 2_000);
  t.regex(randomHex(5000), /^[0-9a-f]{10000}$/);
});

test('randomLocalPart - lowercase letters and digits of the asked length', (t) => {
  const parts = Array.from({ length: 500 }, () => randomLocalPart());
  for (const p of parts) t.regex(p, /^[a-km-np-z2-9]{12}$/);
  t.is(new Set(parts).size, 500);
});
