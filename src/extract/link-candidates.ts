// The link candidates of a plain-text part (or URLs printed as text in HTML): each URL with the
// words that introduce it, as the scorer in link.ts reads an HTML anchor.
import { type LinkCandidate, MAX_LINKS } from './link.js';
import { lineStart, previousLineStart, type UrlSpan } from './text-prep.js';

export function isWebUrl(href: string): boolean {
  return /^https?:\/\/[^\s/?#]+/i.test(href);
}

/** The last sentence of a label: "Didn't try to sign in? Reset your password" → "Reset your password". */
function lastSentence(label: string): [lead: string, sentence: string] {
  const body = label.replace(/[\s\p{P}]+$/u, '');
  let cut = -1;
  for (let i = body.length - 1; i >= 0; i--) {
    const ch = body[i]!;
    if ('。！？'.includes(ch) || ('.!?'.includes(ch) && /\s/.test(body[i + 1] ?? ''))) {
      cut = i + 1;
      break;
    }
  }
  return cut === -1 ? ['', body.trim()] : [body.slice(0, cut), body.slice(cut).trim()];
}

/** The previous visible line before the line starting at `ls` (at most 200 chars of it), or ''. */
function previousLine(text: string, ls: number): string {
  const prev = previousLineStart(text, ls);
  return prev === -1 ? '' : text.slice(Math.max(prev, ls - 200), ls);
}

/**
 * The line above `ls` with the lines of its sentence above it, when the text is hard-wrapped ("If
 * you didn't, reset your password right away and check which apps can\nreach your files:"): a line
 * above that is not blank and ends without a full stop belongs to the same sentence. At most 300
 * characters.
 */
function sentenceAbove(text: string, ls: number): string {
  let start = previousLineStart(text, ls);
  // Another link's line ("If it wasn't you, secure your account: <URL>") introduces that link.
  if (start === -1 || /https?:\/\//i.test(text.slice(start, ls))) return '';
  for (;;) {
    const before = lineStart(text, start - 1);
    const above = text.slice(before, start - 1);
    if (start <= 0 || ls - before > 300 || above.trim() === '' || /[.!?。！？:：]\s*$/u.test(above)) break;
    start = before;
  }
  return text.slice(Math.max(start, ls - 300), ls).replace(/\s*\n\s*/g, ' ');
}

const HAS_WORD = /[\p{L}\p{N}]/u;
/** A reference line's marker before its URL: "[1] ", "[12]: ". */
const REFERENCE = /^\s*\[(\d{1,3})\]:?\s*$/;
/** How far back a footnote's marker is looked for (bounded: each reference line looks once). */
const REFERENCE_REACH = 16_384;
const HAS_LETTER = /\p{L}/u;
/** Opening brackets and quotes that may stand between a label and its URL: "( URL )", "「URL」", "« URL »". */
const OPENERS = /[\s(<\[:：«»„“"'「『【（-]+$/u;

/**
 * The lead-in of a link at `pos`: the text before it on its line, or the previous visible line when
 * that holds no words; `leadHoldsLink` when that line holds the link before (ending at
 * `previousLinkEnd`): "If it wasn't you, <secure your account>." is that link's safety exit, not
 * the button below it.
 */
export function leadBefore(text: string, pos: number, previousLinkEnd = -1): { lead: string; leadHoldsLink: boolean } {
  const ls = lineStart(text, pos);
  const same = text.slice(Math.max(ls, pos - 200), pos);
  if (HAS_WORD.test(same)) return { lead: same, leadHoldsLink: false };
  const prev = previousLineStart(text, ls);
  return { lead: prev === -1 ? '' : text.slice(Math.max(prev, ls - 200), ls), leadHoldsLink: previousLinkEnd > prev };
}

/** The rest of the sentence after a link (same line, at most 120 characters). */
export function trailAfter(text: string, end: number, limit = text.length): string {
  const rest = text.slice(end, Math.min(limit, end + 120));
  const stop = /[.!?。！？](?:\s|$)|\n/.exec(rest);
  return stop ? rest.slice(0, stop.index) : rest;
}

/** Candidates from plain-text URLs: the anchor is the sentence introducing the URL. */
export function textLinkCandidates(text: string, urls: UrlSpan[]): LinkCandidate[] {
  const out: LinkCandidate[] = [];
  for (const u of urls.slice(0, MAX_LINKS)) {
    const ls = lineStart(text, u.start);
    const same = text.slice(Math.max(ls, u.start - 200), u.start);
    // A footnote ("[1] URL" in a references block, text parts made from HTML): its words are the
    // sentence before its marker in the body ("Please confirm your subscription [1] so we …").
    const ref = REFERENCE.exec(same);
    const window = Math.max(0, ls - REFERENCE_REACH);
    const found = ref ? text.slice(window, ls).lastIndexOf(`[${ref[1]}]`) : -1;
    const marker = found === -1 ? -1 : window + found;
    if (marker !== -1) {
      const [lead, anchor] = lastSentence(text.slice(Math.max(0, marker - 200), marker).replace(/\n/g, ' '));
      out.push({ url: u.url, anchor, lead, wide: text.slice(Math.max(0, marker - 300), marker), trail: trailAfter(text, marker + ref![0].trim().length), extra: '', button: false });
      continue;
    }
    // "Label ( URL )", "Label: URL", "[Label](URL)" or a label line above "[URL]" / "<URL>".
    const onLine = HAS_WORD.test(same);
    const labelLineStart = onLine ? ls : previousLineStart(text, ls);
    const label = (onLine ? same : previousLine(text, ls)).replace(OPENERS, '').replace(/^\[([^\]]*)\]$/, '$1');
    const [before, sentence] = lastSentence(label);
    const anchor = sentence.replace(/^.*\[([^\]]+)\]$/, '$1');
    // A list marker ("1. Reset your password: URL") is no lead-in: the line above is.
    const lead = HAS_LETTER.test(before) || labelLineStart <= 0 ? before : sentenceAbove(text, labelLineStart);
    out.push({ url: u.url, anchor, lead, wide: text.slice(Math.max(0, u.start - 300), u.start), trail: trailAfter(text, u.end), extra: '', button: false, quoted: text.startsWith('>', ls) });
  }
  return out;
}

