// The keyword matcher's contract (src/extract/keywords.ts): word boundaries, optional separators,
// `*` ends, leftmost-then-longest, and offsets into the caller's text.
import test from 'ava';
import { KeywordMatcher } from '../../src/extract/keywords.js';

const CODE = 1;
const LABEL = 2;
const matcher = new KeywordMatcher([
  [CODE, ['code', '*kode', 'sign in', '確認コード', 'код', 'κωδικός']],
  [LABEL, ['postal code', 'promo code', 'no.', 'kod']],
]);
const found = (text: string, from?: number, to?: number) => matcher.find(text, from, to).map((h) => [text.slice(h.start, h.end), h.kind]);

test('a bounded phrase needs a word boundary on both sides', (t) => {
  t.deepEqual(found('Your code is 1234'), [['code', CODE]]);
  t.deepEqual(found('xcode codex code'), [['code', CODE]]);
  t.deepEqual(found('акод код'), [['код', CODE]]);
  t.deepEqual(found('CODE: 1'), [['CODE', CODE]]);
  // Letters of Latin-1, Latin Extended and Greek are word characters too; punctuation is not.
  t.deepEqual(found('ßcode µcode ªcode ŋcode ωcode'), []);
  t.deepEqual(found('«code» ¿code? ·code'), [['code', CODE], ['code', CODE], ['code', CODE]]);
});

test('a space or hyphen in a phrase matches a space, a hyphen or nothing', (t) => {
  t.deepEqual(found('Sign in, sign-in or signin'), [['Sign in', CODE], ['sign-in', CODE], ['signin', CODE]]);
});

test('a * end lifts the boundary there, and scripts without spaces need none', (t) => {
  t.deepEqual(found('Bekreftelseskode 1234'), [['kode', CODE]]);
  t.deepEqual(found('あなたの確認コードは123456です'), [['確認コード', CODE]]);
  t.deepEqual(found('Ο κωδικός σας'), [['κωδικός', CODE]]);
});

test('the phrase that starts first wins, then the longest; a phrase ending in a dot needs no boundary after it', (t) => {
  t.deepEqual(found('Your postal code: 94158, promo code SAVE, code 55'), [['postal code', LABEL], ['promo code', LABEL], ['code', CODE]]);
  t.deepEqual(found('Order no.12, kod 9'), [['no.', LABEL], ['kod', LABEL]]);
});

test('hits are offsets into the whole text, for a range and past characters that grow when lower-cased', (t) => {
  const text = 'İİ code, then code';
  const hits = matcher.find(text, 3);
  t.deepEqual(hits.map((h) => [h.start, h.end]), [[3, 7], [14, 18]]);
  t.deepEqual(matcher.find(text, 3, 12).map((h) => h.start), [3]);
  t.deepEqual(matcher.find('xcode', 1).map((h) => [h.start, h.end]), [[1, 5]], 'a range starts at a boundary, wherever it is cut');
});

test('a phrase of several words, or of three or more characters of a script without spaces, is a phrase', (t) => {
  t.deepEqual(matcher.find('postal code, code, 確認コード').map((h) => h.phrase), [true, false, true]);
});
