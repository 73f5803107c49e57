// Piscina task of floor-smtp-shard: mailparser on one raw mail, the parts a delivery carries back.
import { simpleParser } from 'mailparser';

export default async function parse(raw) {
  const m = await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  return { subject: m.subject ?? '', from: m.from?.text ?? '', text: m.text ?? '', html: m.html || '' };
}
