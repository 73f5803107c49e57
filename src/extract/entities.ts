// HTML character-reference decoding (named, decimal and hex), for text nodes and attribute values.
// One linear regex pass with bounded quantifiers, so megabytes of `&amp;` cost a single scan.

/** HTML 4 Latin-1 entity names, in code-point order from U+00A0; kept as a list to stay compact. */
const LATIN1 = (
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 ' +
  'acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml ' +
  'Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde ' +
  'Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ' +
  'ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide ' +
  'oslash ugrave uacute ucirc uuml yacute thorn yuml'
).split(' ');

/** Other names that show up in mail: punctuation, spaces, and the HTML5 ASCII names used in hrefs. */
const OTHER: Record<string, number> = {
  amp: 38, AMP: 38, lt: 60, LT: 60, gt: 62, GT: 62, quot: 34, QUOT: 34, apos: 39, COPY: 169, REG: 174,
  NewLine: 10, Tab: 9, excl: 33, num: 35, dollar: 36, percnt: 37, lpar: 40, rpar: 41, ast: 42, plus: 43,
  comma: 44, period: 46, sol: 47, colon: 58, semi: 59, equals: 61, quest: 63, commat: 64, lsqb: 91,
  bsol: 92, rsqb: 93, Hat: 94, lowbar: 95, grave: 96, lcub: 123, verbar: 124, rcub: 125, hyphen: 8208,
  OElig: 338, oelig: 339, Scaron: 352, scaron: 353, Yuml: 376, fnof: 402, circ: 710, tilde: 732,
  ensp: 8194, emsp: 8195, thinsp: 8201, zwnj: 8204, zwj: 8205, lrm: 8206, rlm: 8207, ndash: 8211,
  mdash: 8212, lsquo: 8216, rsquo: 8217, sbquo: 8218, ldquo: 8220, rdquo: 8221, bdquo: 8222, dagger: 8224,
  Dagger: 8225, bull: 8226, hellip: 8230, permil: 8240, prime: 8242, Prime: 8243, lsaquo: 8249,
  rsaquo: 8250, euro: 8364, trade: 8482, larr: 8592, uarr: 8593, rarr: 8594, darr: 8595, harr: 8596,
  check: 10003, star: 9734, starf: 9733, hearts: 9829, NonBreakingSpace: 160, ZeroWidthSpace: 8203,
};

const NAMED = new Map<string, number>(Object.entries(OTHER));
LATIN1.forEach((name, i) => NAMED.set(name, 160 + i));

/** Names a browser also decodes without the trailing semicolon (legacy behaviour). */
const LEGACY_NO_SEMI = new Set(['amp', 'AMP', 'lt', 'LT', 'gt', 'GT', 'quot', 'QUOT', 'nbsp', 'copy', 'COPY', 'reg', 'REG']);

/** The HTML spec maps C1 control references (&#128;–&#159;) to their windows-1252 characters. */
const C1 = [
  8364, 129, 8218, 402, 8222, 8230, 8224, 8225, 710, 8240, 352, 8249, 338, 141, 381, 143, 144, 8216, 8217,
  8220, 8221, 8226, 8211, 8212, 732, 8482, 353, 8250, 339, 157, 382, 376,
];

// Bounded repetitions only: each match attempt looks at no more than ~34 characters.
const REF = /&(?:#[xX]([0-9a-fA-F]{1,8})|#([0-9]{1,10})|([A-Za-z][A-Za-z0-9]{1,31}))(;?)/g;

function fromCodePoint(cp: number): string {
  if (cp >= 0x80 && cp <= 0x9f) return String.fromCodePoint(C1[cp - 0x80]!);
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\uFFFD';
  return String.fromCodePoint(cp);
}

/**
 * Decode character references. In attribute values (`inAttribute`), a named reference without `;`
 * followed by an alphanumeric or `=` stays literal, as browsers do, so `?a=1&copy=2` survives.
 */
export function decodeEntities(input: string, inAttribute = false): string {
  if (input.indexOf('&') === -1) return input;
  REF.lastIndex = 0;
  return input.replace(REF, (whole: string, hex: string | undefined, dec: string | undefined, name: string | undefined, semi: string, offset: number) => {
    if (hex !== undefined) return fromCodePoint(parseInt(hex, 16));
    if (dec !== undefined) return fromCodePoint(parseInt(dec, 10));
    if (name === undefined) return whole;
    if (semi) {
      const cp = NAMED.get(name);
      return cp === undefined ? whole : String.fromCodePoint(cp);
    }
    // No semicolon: only the legacy names decode, and the longest legacy prefix wins ("&ampx" → "&x").
    for (let len = Math.min(name.length, 4); len >= 2; len--) {
      const prefix = name.slice(0, len);
      if (!LEGACY_NO_SEMI.has(prefix)) continue;
      const next = name.length > len ? name[len]! : input[offset + whole.length] ?? '';
      if (inAttribute && /[A-Za-z0-9=]/.test(next)) return whole;
      return String.fromCodePoint(NAMED.get(prefix)!) + name.slice(len);
    }
    return whole;
  });
}
