// The bounds on what sender authentication reads (issue 33, DESIGN §7). At most
// MAX_SIGNATURE_CHECKS DKIM signatures and ARC sets reach the verifier: a mail with 1,500
// DKIM-Signature fields that differ in l= made mailauth hash the 9 MB body 1,500 times and look up
// as many keys. Signatures past the bound are not checked (RFC 6376 §6.1 lets a verifier limit
// them): an unchecked signature is no pass, so the limit can only fail closed. And at most
// MAX_CHECKED_HEADER_LINES header lines reach it: past that, only the fields a verdict reads.

export const MAX_SIGNATURE_CHECKS = 10;
/** An ARC chain that costs more than this is not checked at all (its result is `fail`). */
const MAX_ARC_CHECKS = 5;
/**
 * mailauth reads a header section in time quadratic in its lines (it joins a folded line to the
 * one above it, one at a time, copying what it has so far): 16,000 folded lines took 51 ms,
 * 32,000 took 2 s, and a 6 MB header of folded lines held an auth thread, which every tenant's
 * checks share, for hours. Real header sections have a few hundred lines.
 */
export const MAX_CHECKED_HEADER_LINES = 2_000;

interface Field {
  name: string;
  text: string;
  /** Lines the field spans (1 plus its folds). */
  lines: number;
}

/** The header fields of a header section, folded lines kept with their field. */
function fields(header: string): Field[] {
  const out: Field[] = [];
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf('\n', start);
    let lines = 1;
    // A field goes on while the next line starts with white space (RFC 5322 §2.2.3 folding).
    while (end >= 0 && (header[end + 1] === ' ' || header[end + 1] === '\t')) {
      end = header.indexOf('\n', end + 1);
      lines++;
    }
    const stop = end < 0 ? header.length : end + 1;
    const text = header.slice(start, stop);
    const colon = text.indexOf(':');
    out.push({ name: colon > 0 ? text.slice(0, colon).trim().toLowerCase() : '', text, lines });
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

/** The field names a DKIM-Signature or ARC-Message-Signature signs (its h= tag), lower-cased. */
function signedNames(text: string): string[] {
  const m = /(?:^|;|:)\s*h\s*=\s*([^;]*)/i.exec(text.slice(0, 16_384));
  return m ? m[1]!.split(':').map((name) => name.replace(/\s+/g, '').toLowerCase()).filter(Boolean) : [];
}

const linesOf = (list: Field[]) => list.reduce((n, f) => n + f.lines, 0);

/**
 * The fields of `list` named in `wanted`, in order. A line that is no field stays with the field
 * above it, as mailauth reads it (appended to that field's value).
 */
function only(list: Field[], wanted: Set<string>): Field[] {
  const out: Field[] = [];
  let keeping = false;
  for (const f of list) {
    if (f.name !== '') keeping = wanted.has(f.name);
    if (keeping) out.push(f);
  }
  return out;
}

/**
 * A header section over MAX_CHECKED_HEADER_LINES, cut to the fields a verdict reads: From (DMARC
 * and the authors), the signatures and ARC sets left, and the fields they sign. Still too long:
 * the From fields alone, every signature unchecked. Even those too long: nothing, and a message
 * without an author is a fail (sender-auth.ts). Each step can only lose a pass, never make one.
 */
function verdictFields(list: Field[]): { kept: Field[]; signaturesDropped: boolean } {
  const wanted = new Set(['from']);
  for (const f of list) {
    if (f.name !== 'dkim-signature' && !f.name.startsWith('arc-')) continue;
    wanted.add(f.name);
    for (const name of signedNames(f.text)) wanted.add(name);
  }
  const signed = only(list, wanted);
  if (linesOf(signed) <= MAX_CHECKED_HEADER_LINES) return { kept: signed, signaturesDropped: false };
  const authors = only(list, new Set(['from']));
  return { kept: linesOf(authors) <= MAX_CHECKED_HEADER_LINES ? authors : [], signaturesDropped: true };
}

/**
 * The message as the verifier may read it: at most MAX_SIGNATURE_CHECKS signatures left in its
 * header (the ARC chain if it is short enough, then DKIM signatures aligned with the From domain
 * first, then the others in order) and at most MAX_CHECKED_HEADER_LINES lines (verdictFields). A
 * message within both bounds is returned as it is.
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
  let arcDropped = arcCost > MAX_ARC_CHECKS;
  const budget = MAX_SIGNATURE_CHECKS - (arcDropped ? 0 : arcCost);
  const tooLong = linesOf(list) > MAX_CHECKED_HEADER_LINES;
  if (dkim.length <= budget && !arcDropped && !tooLong) return { raw, skipped: 0, arcDropped: false };
  const author = authorDomain(list);
  const ranked = [...dkim.filter((f) => aligned(signingDomain(f.text), author)), ...dkim.filter((f) => !aligned(signingDomain(f.text), author))];
  const keep = new Set(ranked.slice(0, Math.max(0, budget)));
  let kept = list.filter((f) => (f.name === 'dkim-signature' ? keep.has(f) : !(arcDropped && f.name.startsWith('arc-'))));
  let skipped = dkim.length - keep.size;
  if (tooLong) {
    const cut = verdictFields(kept);
    kept = cut.kept;
    if (cut.signaturesDropped) {
      skipped = dkim.length;
      arcDropped ||= seals > 0;
    }
  }
  const head = Buffer.from(kept.map((f) => f.text).join(''), 'latin1');
  return { raw: Buffer.concat([head, raw.subarray(end + sep / 2)]), skipped, arcDropped };
}
