// The bound on signature checks per message (issue 33, DESIGN §7): at most MAX_SIGNATURE_CHECKS
// DKIM signatures and ARC sets reach the verifier. A mail with 1,500 DKIM-Signature fields that
// differ in l= made mailauth hash the 9 MB body 1,500 times and look up as many keys. Signatures
// past the bound are not checked (RFC 6376 §6.1 lets a verifier limit them): an unchecked
// signature is no pass, so the limit can only fail closed.

export const MAX_SIGNATURE_CHECKS = 10;
/** An ARC chain that costs more than this is not checked at all (its result is `fail`). */
const MAX_ARC_CHECKS = 5;

interface Field {
  name: string;
  text: string;
}

/** The header fields of a header section, folded lines kept with their field. */
function fields(header: string): Field[] {
  const out: Field[] = [];
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf('\n', start);
    // A field goes on while the next line starts with white space (RFC 5322 §2.2.3 folding).
    while (end >= 0 && (header[end + 1] === ' ' || header[end + 1] === '\t')) end = header.indexOf('\n', end + 1);
    const stop = end < 0 ? header.length : end + 1;
    const text = header.slice(start, stop);
    const colon = text.indexOf(':');
    out.push({ name: colon > 0 ? text.slice(0, colon).trim().toLowerCase() : '', text });
    start = stop;
  }
  return out;
}

/** The d= of a signature field, lower-cased. */
function signingDomain(text: string): string {
  const m = /(?:^|;|:)\s*d\s*=\s*([^;\s]{1,253})/i.exec(text.slice(0, 4096));
  return m ? m[1]!.toLowerCase() : '';
}

/** The domain of the first address in the From field, lower-cased (only to prefer aligned signatures). */
function authorDomain(list: Field[]): string {
  const from = list.find((f) => f.name === 'from')?.text.slice(0, 4096) ?? '';
  const m = /@([^\s>,;"]+)/.exec(from);
  return m ? m[1]!.toLowerCase().replace(/\.$/, '') : '';
}

const aligned = (d: string, author: string) => d !== '' && author !== '' && (d === author || author.endsWith(`.${d}`) || d.endsWith(`.${author}`));

export interface BoundedSignatures {
  raw: Buffer;
  /** DKIM signatures left unchecked. */
  skipped: number;
  /** The ARC chain was too long to check. */
  arcDropped: boolean;
}

/**
 * The message with at most MAX_SIGNATURE_CHECKS signatures left in its header: the ARC chain if it
 * is short enough, then DKIM signatures aligned with the From domain first, then the others in
 * order. A message within the bound is returned as it is.
 */
export function boundSignatures(raw: Buffer): BoundedSignatures {
  let end = raw.indexOf('\r\n\r\n');
  let sep = 4;
  if (end < 0) {
    end = raw.indexOf('\n\n');
    sep = 2;
  }
  if (end < 0) return { raw, skipped: 0, arcDropped: false };
  const header = raw.toString('latin1', 0, end + sep / 2);
  const list = fields(header);
  const dkim = list.filter((f) => f.name === 'dkim-signature');
  const seals = list.filter((f) => f.name === 'arc-seal').length;
  const arcCost = seals > 0 ? seals + 1 : 0;
  const arcDropped = arcCost > MAX_ARC_CHECKS;
  const budget = MAX_SIGNATURE_CHECKS - (arcDropped ? 0 : arcCost);
  if (dkim.length <= budget && !arcDropped) return { raw, skipped: 0, arcDropped: false };
  const author = authorDomain(list);
  const ranked = [...dkim.filter((f) => aligned(signingDomain(f.text), author)), ...dkim.filter((f) => !aligned(signingDomain(f.text), author))];
  const keep = new Set(ranked.slice(0, Math.max(0, budget)));
  const kept = list.filter((f) => (f.name === 'dkim-signature' ? keep.has(f) : !(arcDropped && f.name.startsWith('arc-'))));
  const head = Buffer.from(kept.map((f) => f.text).join(''), 'latin1');
  return { raw: Buffer.concat([head, raw.subarray(end + sep / 2)]), skipped: dkim.length - keep.size, arcDropped };
}
