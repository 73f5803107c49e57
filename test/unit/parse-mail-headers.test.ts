// Unit: the header fields kept on a message record are bounded (the raw source keeps them all), so a
// hostile header section does not ride along every step a record takes; ordinary headers are whole.
import test from 'ava';
import { MAX_STORED_HEADER_CHARS, parseMail } from '../../src/mail/parse-mail.js';

const head = 'From: a@sender.test\r\nTo: b@mailcue.test\r\nSubject: Code\r\n';

test('a header section near the parser\'s own 1 MB limit is kept up to the bound, with a warning', async (t) => {
  const huge = Array.from({ length: 60 }, (_, i) => `X-Filler-${i}: ${'y'.repeat(15_000)}\r\n`).join('');
  const m = await parseMail(Buffer.from(`${head}${huge}Content-Type: text/plain\r\n\r\nYour code is 123456\r\n`));
  const chars = Object.entries(m.headers).reduce((n, [k, v]) => n + k.length + v.length, 0);
  t.true(chars <= MAX_STORED_HEADER_CHARS, `${chars} characters kept`);
  t.is(m.headers.subject, 'Code');
  t.is(m.otp, '123456');
  t.true(m.warnings!.some((w) => w.startsWith('headers truncated')));
});

test('ordinary headers are kept whole, without a warning', async (t) => {
  const m = await parseMail(Buffer.from(`${head}X-Long: ${'z'.repeat(10_000)}\r\nContent-Type: text/plain\r\n\r\nhello\r\n`));
  t.is(m.headers['x-long'], 'z'.repeat(10_000));
  t.is(m.headers.from, 'a@sender.test');
  t.false(m.warnings!.some((w) => w.startsWith('headers truncated')));
});
