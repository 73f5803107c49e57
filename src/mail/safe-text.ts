// The injection-safe view of a message for agents (issue 19): the text a person would see, with
// invisible and bidi-control characters removed, links listed apart as `[n] text → URL (host)`,
// length capped, and warnings naming what was removed. Pure: no I/O, bounded work.
import { readVisibleHtml, type VisibleLink } from './visible-html.js';

export interface SafeView {
  safe_text: string;
  warnings: string[];
}

/** Characters of body text kept at most (the links section is capped on its own). */
export const MAX_SAFE_TEXT_CHARS = 20_000;
/** Links listed at most, and characters of one URL or label. */
const MAX_LINKS = 100;
const MAX_URL_CHARS = 2_000;
const MAX_LABEL_CHARS = 200;

export const WARNINGS = {
  hidden: 'hidden text removed',
  zero_size: 'zero-size text removed',
  same_colour: 'text in the same colour as its background removed',
  comment: 'HTML comments removed',
  script: 'scripts removed',
  invisible: 'invisible characters removed',
  tags: 'invisible Unicode tag characters removed (they can spell hidden text)',
  bidi: 'bidirectional control characters removed',
  control: 'control characters removed',
  deceptive: 'link text shows a different host than its URL',
  punycode: 'link host uses internationalized (punycode) characters',
  truncated: `text truncated to ${MAX_SAFE_TEXT_CHARS} characters`,
  nesting: 'markup nested over 1,024 elements deep flattened',
  links_truncated: `only the first ${MAX_LINKS} links are listed`,
} as const;

// Zero-width and other format characters that render as nothing (soft hyphen, joiners, word
// joiner, invisible operators, BOM, Mongolian vowel separator, Hangul fillers).
const INVISIBLE = /[\u00AD\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200D\u2060-\u2064\u3164\uFEFF\uFFA0]/g;
// Unicode tag characters (U+E0000–U+E007F) mirror ASCII and are used to smuggle text past readers.
const TAGS = /[\u{E0000}-\u{E007F}]/gu;
// Bidi embeddings, overrides, isolates and marks reorder what a reader sees (CVE-2021-42574).
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
// C0 and C1 controls except tab and line feed.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`\])]{1,2000}/gi;
const HOST_IN_TEXT = /(?:^|[^\w.@-])(?:https?:\/\/)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63})(?![\w-])/i;

/** Removes what a reader cannot see, adding a warning for each kind found. */
export function stripUnseen(text: string, warnings: Set<string>): string {
  const rules: [RegExp, string][] = [[TAGS, WARNINGS.tags], [INVISIBLE, WARNINGS.invisible], [BIDI, WARNINGS.bidi], [CONTROL, WARNINGS.control]];
  let out = text;
  for (const [re, warning] of rules) {
    re.lastIndex = 0;
    if (!re.test(out)) continue;
    warnings.add(warning);
    out = out.replace(re, '');
  }
  return out;
}

function hostOf(href: string): string | null {
  try {
    const url = new URL(href);
    if (url.protocol === 'mailto:') return url.pathname.split('@').pop()?.toLowerCase() || null;
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** Names that look like hosts but are file names in link text ("invoice.pdf"). */
const FILE_EXTENSIONS = new Set(['pdf', 'doc', 'docx', 'xls', 'xlsx', 'csv', 'zip', 'png', 'jpg', 'jpeg', 'gif', 'txt', 'html', 'htm', 'ics', 'ppt', 'pptx']);

/** The host a link's visible text names, if it names one ("paypal.com", "https://x.y/…"). */
function hostShown(label: string): string | null {
  const m = HOST_IN_TEXT.exec(label);
  if (!m) return null;
  const host = m[1]!.toLowerCase();
  return FILE_EXTENSIONS.has(host.slice(host.lastIndexOf('.') + 1)) ? null : host;
}

/** Same host, or one is a subdomain of the other (text "example.com", URL www.example.com). */
function sameSite(a: string, b: string): boolean {
  return a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function listLinks(links: VisibleLink[], warnings: Set<string>): string[] {
  const lines: string[] = [];
  for (const [i, link] of links.entries()) {
    if (i >= MAX_LINKS) {
      warnings.add(WARNINGS.links_truncated);
      break;
    }
    const href = stripUnseen(link.href, warnings);
    const host = hostOf(href);
    const label = oneLine(stripUnseen(link.text, warnings), MAX_LABEL_CHARS);
    if (host) {
      const shown = hostShown(label);
      if (shown && !sameSite(shown, host.replace(/^\[|\]$/g, ''))) warnings.add(WARNINGS.deceptive);
      if (host.split('.').some((l) => l.startsWith('xn--'))) warnings.add(WARNINGS.punycode);
    }
    const url = oneLine(href, MAX_URL_CHARS);
    lines.push(`[${i + 1}] ${label === url ? '' : `${label} → `}${url}${host ? ` (${host})` : ''}`);
  }
  return lines;
}

/**
 * Trailing blanks of each line dropped and at most one empty line in a row, line by line: the
 * regex `/[ \t]+\n/` rescans a run of blanks at every start, quadratic in a line of spaces.
 */
function tidy(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let blank = 0;
  for (const line of lines) {
    let end = line.length;
    while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
    if (end === 0) {
      if (++blank > 1) continue;
    } else {
      blank = 0;
    }
    out.push(end === line.length ? line : line.slice(0, end));
  }
  return out.join('\n').trim();
}

/**
 * A URL without the sentence punctuation after it, in one backward scan: `/[.,;:!?]+$/` retried
 * the run at each of its characters, quadratic in a URL of 2,000 `!` and a letter.
 */
function withoutTrailingPunctuation(url: string): string {
  let end = url.length;
  while (end > 0 && '.,;:!?'.includes(url[end - 1]!)) end--;
  return url.slice(0, end);
}

/** Plain text: kept as written (URLs stay inline and are also listed). */
function fromPlainText(text: string, warnings: Set<string>): { body: string; links: VisibleLink[] } {
  let body = text.replace(/\r\n?/g, '\n');
  if (body.length > MAX_SAFE_TEXT_CHARS) {
    body = body.slice(0, MAX_SAFE_TEXT_CHARS);
    warnings.add(WARNINGS.truncated);
  }
  const links = [...body.matchAll(URL_IN_TEXT)].map((m) => ({ text: m[0], href: withoutTrailingPunctuation(m[0]) }));
  for (const l of links) l.text = l.href;
  return { body, links };
}

/**
 * The safe view of a message. HTML wins when present, since it is what a person's mail client
 * shows; the plain-text part is read only for text-only mail.
 */
export function safeView(input: { text: string | null; html: string | null }): SafeView {
  const warnings = new Set<string>();
  let body: string;
  let links: VisibleLink[];
  if (input.html) {
    const read = readVisibleHtml(input.html, MAX_SAFE_TEXT_CHARS);
    for (const reason of read.removed) warnings.add(WARNINGS[reason]);
    if (read.truncated) warnings.add(WARNINGS.truncated);
    body = read.text;
    links = read.links;
  } else {
    ({ body, links } = fromPlainText(input.text ?? '', warnings));
  }
  body = tidy(stripUnseen(body, warnings));
  const listed = listLinks(links, warnings);
  const safe_text = listed.length > 0 ? `${body}\n\nLinks:\n${listed.join('\n')}` : body;
  return { safe_text, warnings: [...warnings] };
}
