// The labelled OTP/verification-link corpus (copied from shared/otp-corpus into the fixtures so CI
// has it): every email must give exactly its labelled `otp` and `verification_link`, both through
// the service's parseMail() and through mailparser + extract() directly.
import test from 'ava';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { extract } from '../../src/extract/index.js';
import { parseMail } from '../../src/mail/parse-mail.js';

interface Label {
  otp: string | null;
  verification_link: string | null;
  note: string;
}

const dir = fileURLToPath(new URL('../fixtures/otp-corpus/', import.meta.url));
const labels = JSON.parse(readFileSync(`${dir}labels.json`, 'utf8')) as Record<string, Label>;
const files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();

test('extract - corpus has a label for every email', (t) => {
  t.deepEqual(files, Object.keys(labels).sort());
});

for (const file of files) {
  const label = labels[file]!;
  test(`extract - corpus ${file}: ${label.note}`, async (t) => {
    const raw = readFileSync(dir + file);
    const want = { otp: label.otp, verification_link: label.verification_link };

    const viaService = await parseMail(new Uint8Array(raw));
    t.deepEqual({ otp: viaService.otp, verification_link: viaService.verification_link }, want, 'through parseMail()');

    // mailparser defaults (cid: images inlined as data: URIs, text generated from HTML-only mail).
    const parsed = await simpleParser(raw);
    const direct = extract({ subject: parsed.subject ?? '', text: parsed.text ?? null, html: parsed.html || null });
    t.deepEqual(direct, want, 'through simpleParser() + extract()');
  });
}
