// Piscina task of floor-smtp-shard: mailparser on a batch of raw mails, the parts a delivery
// carries back for each.
import { simpleParser } from 'mailparser';

async function parseOne(raw) {
  const m = await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  return { subject: m.subject ?? '', from: m.from?.text ?? '', text: m.text ?? '', html: m.html || '' };
}

export default function parse(raws) {
  return Promise.all(raws.map(parseOne));
}
