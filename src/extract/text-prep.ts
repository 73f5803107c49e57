// Shared text preparation for the OTP and link extractors: input caps, Unicode clean-up, line
// helpers and plain-text URL spotting. Every function here is a single linear pass.

/** How much of each part is examined; codes and links sit near the top of real mail. */
export const PART_CAP = 256 * 1024;
export const SUBJECT_CAP = 2048;

// Zero-width, soft-hyphen and bidirectional-control characters (LRM, RLM, embeddings, isolates) are
// display tricks ("4\u200B6\u200B5…", right-to-left mail wrapping each number in U+2066…U+2069);
// they carry no text.
export const INVISIBLE = /[\u00AD\u034F\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;
// Horizontal white space of every width (NBSP, thin, narrow, ideographic) reads as one space.
const HSPACE = /[ \t\f\v\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]+/g;
/** The zero of each script whose digits a code may be shown in: full-width, Arabic-Indic, Persian, Devanagari. */
const DIGIT_ZEROS = [0xff10, 0x0660, 0x06f0, 0x0966];
const hex = (c: number): string => `\\u${c.toString(16).padStart(4, '0')}`;
const OTHER_DIGIT = new RegExp(`[${DIGIT_ZEROS.map((z) => `${hex(z)}-${hex(z + 9)}`).join('')}]`, 'g');

/**
 * Normalise a plain-text part: cap it, drop invisibles, map other scripts' digits to ASCII, turn CRLF
 * into LF and collapse horizontal space runs, so offsets and distances mean the same in every part.
 */
export function cleanText(raw: string, cap = PART_CAP): string {
  let s = raw.length > cap ? raw.slice(0, cap) : raw;
  s = s.replace(INVISIBLE, '');
  s = foldDigits(s);
  s = s.replace(/\r\n?/g, '\n');
  s = s.replace(HSPACE, ' ');
  return s.replace(/ \n/g, '\n');
}

/**
 * Full-width (０-９), Arabic-Indic (٠-٩), Persian (۰-۹) and Devanagari (०-९) digits to ASCII;
 * same length, so offsets into the text stay valid.
 */
export function foldDigits(s: string): string {
  return s.replace(OTHER_DIGIT, (d) => {
    const c = d.charCodeAt(0);
    return String.fromCharCode(c - DIGIT_ZEROS.find((z) => c >= z && c <= z + 9)! + 48);
  });
}

export function lineStart(text: string, pos: number): number {
  return pos <= 0 ? 0 : text.lastIndexOf('\n', pos - 1) + 1;
}

export function lineEnd(text: string, pos: number): number {
  const i = text.indexOf('\n', pos);
  return i === -1 ? text.length : i;
}

/** Start of the nearest earlier line that has visible text, or -1. Looks back at most `limit` chars. */
export function previousLineStart(text: string, pos: number, limit = 400): number {
  let end = lineStart(text, pos) - 1;
  const floor = Math.max(0, pos - limit);
  while (end > floor) {
    const start = lineStart(text, end);
    if (text.slice(start, end).trim() !== '') return start;
    end = start - 1;
  }
  return -1;
}

/** Start of the next line that has visible text, or -1. Looks ahead at most `limit` chars. */
export function nextLineEnd(text: string, pos: number, limit = 400): number {
  let start = lineEnd(text, pos) + 1;
  const ceil = Math.min(text.length, pos + limit);
  while (start < ceil) {
    const end = lineEnd(text, start);
    if (text.slice(start, end).trim() !== '') return end;
    start = end + 1;
  }
  return -1;
}

export interface UrlSpan {
  url: string;
  start: number;
  end: number;
}

// Scheme-anchored, one character class, no nesting: a failed attempt costs a few characters.
// Non-ASCII ends a URL, so CJK punctuation right after a link is never swallowed.
const URL_RE = /https?:\/\/[!#-;=?-Z_a-z~]+/gi;
const TRAILING = `.,;:!?'"*>)]}`;

/**
 * Find http(s) URLs in plain text. Punctuation glued to the end ("…?t=abc." or "<…>") is not part
 * of the URL; a closing parenthesis stays only if the URL opened one. `#`, `=`, `/`, `-` stay.
 */
export function findUrls(text: string, max = 500): UrlSpan[] {
  const out: UrlSpan[] = [];
  URL_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = URL_RE.exec(text)) !== null && out.length < max) {
    const raw = m[0];
    let end = raw.length;
    const open = count(raw, '(');
    let close = count(raw, ')');
    // Strip one trailing character at a time; a ')' stays when the URL itself opened a '('.
    while (end > 0 && TRAILING.includes(raw[end - 1]!)) {
      const last = raw[end - 1]!;
      if (last === ')' && open >= close) break;
      if (last === ')') close--;
      end--;
    }
    if (end > 10) out.push({ url: raw.slice(0, end), start: m.index, end: m.index + end });
  }
  return out;
}

function count(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i !== -1; i = s.indexOf(ch, i + 1)) n++;
  return n;
}

/** Marks digits that belong to URLs or e-mail addresses so no code is read out of them. */
export const MASK = '\uFFFC';

/** Replace URLs and e-mail addresses with MASK characters (same length, so offsets hold). */
export function maskUrlsAndEmails(text: string, urls: UrlSpan[]): string {
  if (urls.length === 0 && text.indexOf('@') === -1) return text;
  const chars: string[] = [];
  let last = 0;
  const spans: Array<[number, number]> = urls.map((u) => [u.start, u.end]);
  // E-mail addresses: expand a bounded distance around each '@' (never a regex that could backtrack).
  for (let at = text.indexOf('@'); at !== -1 && spans.length < 5000; at = text.indexOf('@', at + 1)) {
    let a = at;
    while (a > 0 && at - a < 64 && /[A-Za-z0-9._%+\-]/.test(text[a - 1]!)) a--;
    let b = at + 1;
    while (b < text.length && b - at < 255 && /[A-Za-z0-9.\-]/.test(text[b]!)) b++;
    if (a < at && b > at + 1) spans.push([a, b]);
  }
  spans.sort((x, y) => x[0] - y[0]);
  for (const [a, b] of spans) {
    if (b <= last) continue;
    const from = Math.max(a, last);
    chars.push(text.slice(last, from), MASK.repeat(b - from));
    last = b;
  }
  chars.push(text.slice(last));
  return chars.join('');
}
