import test from 'ava';
import { INBOX_START, newMessageId, positionNow, randomHex, randomLocalPart } from '../../src/util/ids.js';

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

test('positionNow - an inbox position sorts after every id made before it and before every id made after it', (t) => {
  const before = newMessageId(5_000);
  const position = positionNow(5_000);
  const after = newMessageId(5_000);
  t.regex(position, /^msg_[0-9a-z]{13}[0-9a-f]{6}$/, 'a position is a valid message id, so it can be passed back as since');
  t.true(before < position && position < after);
  // A position taken when the clock is ahead still sorts below the next ids.
  const ahead = positionNow(9_000);
  t.true(after < ahead && ahead < newMessageId(9_000) && ahead < newMessageId(8_000));
  t.true(INBOX_START < before);
});
