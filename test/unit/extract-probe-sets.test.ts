// The probe sets (test/fixtures/otp-probes/): mails written to find what the extractor misses on
// mail that is not the corpus. Each must give exactly its labelled `otp` and `verification_link`
// through the service's parseMail(); a mail labelled `known_miss` is a known failure (test.failing),
// reported once a change fixes it.
import test from 'ava';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseMail } from '../../src/mail/parse-mail.js';

interface Label {
  otp: string | null;
  verification_link: string | null;
  note: string;
  known_miss?: string;
}

const root = fileURLToPath(new URL('../fixtures/otp-probes/', import.meta.url));

for (const set of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v']) {
  const dir = `${root}${set}/`;
  const labels = JSON.parse(readFileSync(`${dir}labels.json`, 'utf8')) as Record<string, Label>;
  const files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();

  test(`extract - probe set ${set} has a label for every email`, (t) => {
    t.deepEqual(files, Object.keys(labels).sort());
  });

  for (const file of files) {
    const label = labels[file]!;
    const run = label.known_miss ? test.failing : test;
    run(`extract - probe set ${set} ${file}: ${label.known_miss ? `known miss, ${label.known_miss}` : label.note}`, async (t) => {
      const got = await parseMail(new Uint8Array(readFileSync(dir + file)));
      t.deepEqual({ otp: got.otp, verification_link: got.verification_link }, { otp: label.otp, verification_link: label.verification_link });
    });
  }
}
