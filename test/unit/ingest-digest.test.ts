// Unit: the identity of an ingested message (DESIGN.md §8 "Idempotent ingest"), pinned to the
// canonical form documented in src/ingress/ingest-digest.ts and the README.
import test from 'ava';
import { createHash } from 'node:crypto';
import { ingestDigest } from '../../src/ingress/ingest-digest.js';

const raw = Buffer.from('Subject: hi\r\nMessage-ID: <1@x.test>\r\n\r\nYour code is 123456\r\n');
const sha = (...parts: (string | Buffer)[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest('hex');

test('ingest digest - SHA-256 of the envelope as SMTP lines, then DATA and the raw bytes', (t) => {
  t.is(
    ingestDigest(raw, 'Sender@Example.com', ['b@mailcue.test', 'a@mailcue.test']),
    sha('MAIL FROM:<sender@example.com>\r\nRCPT TO:<a@mailcue.test>\r\nRCPT TO:<b@mailcue.test>\r\nDATA\r\n', raw),
  );
  t.is(ingestDigest(raw, '', ['a@mailcue.test']), sha('MAIL FROM:<>\r\nRCPT TO:<a@mailcue.test>\r\nDATA\r\n', raw), 'the null reverse-path');
});

test('ingest digest - the order, case and repeats of RCPT do not change it', (t) => {
  const one = ingestDigest(raw, 's@x.test', ['a@mailcue.test', 'b@mailcue.test']);
  t.is(ingestDigest(raw, 'S@X.TEST', ['B@mailcue.test', 'a@mailcue.test', 'b@MAILCUE.test']), one);
});

test('ingest digest - another recipient list, another sender or one more byte is another message', (t) => {
  const one = ingestDigest(raw, 's@x.test', ['a@mailcue.test', 'b@mailcue.test']);
  t.not(ingestDigest(raw, 's@x.test', ['a@mailcue.test']), one);
  t.not(ingestDigest(raw, 't@x.test', ['a@mailcue.test', 'b@mailcue.test']), one);
  t.not(ingestDigest(Buffer.concat([raw, Buffer.from('\r\n')]), 's@x.test', ['a@mailcue.test', 'b@mailcue.test']), one);
});

test('ingest digest - an address with a line break (no SMTP command can carry one) is refused, so no two envelopes share a form', (t) => {
  t.throws(() => ingestDigest(raw, 's@x.test', ['a@mailcue.test>\r\nRCPT TO:<b@mailcue.test']));
  t.throws(() => ingestDigest(raw, 's@x.test>\nRCPT TO:<a@mailcue.test', []));
});
