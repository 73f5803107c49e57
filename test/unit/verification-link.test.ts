// The stored verification_link (DESIGN §7 "Output stays inert"): a normalized URL without controls
// or white space. Invisible format characters (bidi overrides, zero-width spaces) count as unsafe
// too: U+202E in a link shows `…exe.gpj` as `…jpg.exe` on a terminal and in a dashboard.
import test from 'ava';
import { normalizedLink } from '../../src/mail/parse-mail.js';

const UNSAFE = /[\s\x00-\x1f\x7f-\x9f\p{Cf}]/u;

test('verification link - a clean link stays exactly as the mail wrote it', (t) => {
  for (const link of ['https://app.example.com/verify?token=Ab12&x=1', 'https://Example.COM', 'http://a.test/ü']) t.is(normalizedLink(link), link);
});

test('verification link - bidi overrides, zero-width and other invisible characters are percent-encoded or dropped', (t) => {
  for (const link of [
    'https://app.example.com/verify?token=Ab12\u202e\u200bgpj.exe',
    'https://app.example.com/\u2066path\u2069/\u00ad?x=\ufeff1',
    'https://app.example.com/v?t=a\u200db\u200cc\u2060d',
  ]) {
    const out = normalizedLink(link);
    t.truthy(out, link);
    t.false(UNSAFE.test(out!), JSON.stringify(out));
    t.true(out!.startsWith('https://app.example.com/'));
  }
});

test('verification link - controls and white space are normalized; other schemes are no link', (t) => {
  t.is(normalizedLink('https://app.example.com/v?t=a b\n'), 'https://app.example.com/v?t=a%20b');
  t.is(normalizedLink('javascript:alert(1)\u202e'), null);
  t.is(normalizedLink(null), null);
});
