// The identity of an ingested message (DESIGN.md §8 "Idempotent ingest"): the SHA-256 of its
// envelope and raw bytes, which the shards index per inbox so that a sender's retry of a message
// already stored there is answered 250 and not stored twice.
//
// Canonical form, hashed as one byte string (lowercase hex digest):
//   MAIL FROM:<reverse-path>\r\n        lowercased; empty for the null sender <>
//   RCPT TO:<forward-path>\r\n          one line per distinct recipient the client named (those
//                                       refused at RCPT too), lowercased, in ascending order of
//                                       their UTF-8 bytes
//   DATA\r\n
//   <raw bytes>                         exactly as received, dot-unstuffed, without the final "."
// Recipient order and repeats do not change the message; another recipient list does.
import { createHash, type Hash } from 'node:crypto';

const LINE_BREAK = /[\r\n]/;

function canonical(address: string): string {
  // No SMTP command line can carry one; refusing it keeps the form unambiguous.
  if (LINE_BREAK.test(address)) throw new Error('an envelope address cannot contain a line break');
  return address.toLowerCase();
}

/**
 * The digest of a message read in chunks: the envelope now, then each chunk of DATA as it arrives
 * (`update`), so that no single turn of the ingress loop hashes a whole 10 MB mail (issue 33).
 */
export function ingestHasher(mailFrom: string, rcptTo: Iterable<string>): Hash {
  const recipients = [...new Set([...rcptTo].map(canonical))].map((a) => Buffer.from(a)).sort(Buffer.compare);
  const hash = createHash('sha256').update(`MAIL FROM:<${canonical(mailFrom)}>\r\n`);
  for (const r of recipients) hash.update('RCPT TO:<').update(r).update('>\r\n');
  return hash.update('DATA\r\n');
}

export function ingestDigest(raw: Uint8Array, mailFrom: string, rcptTo: Iterable<string>): string {
  return ingestHasher(mailFrom, rcptTo).update(raw).digest('hex');
}
