// The tasks the piscina pool runs, off the event loops that hold connections.
import { attachmentOf, parseMail } from '../mail/parse-mail.js';

export function parse(raw: Uint8Array) {
  return parseMail(raw);
}

export function attachment({ raw, index }: { raw: Uint8Array; index: number }) {
  return attachmentOf(raw, index);
}
