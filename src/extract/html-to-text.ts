// Reads mail HTML the way a person sees it: visible text with block breaks, which stretches are
// visually emphasised (bold, big, letter-spaced, monospace), and every link with its anchor text.
// A hand-written single-pass scanner: no DOM, no backtracking regex, bounded stack and budget.
import { decodeEntities } from './entities.js';
import { INVISIBLE, PART_CAP } from './text-prep.js';

export interface HtmlLink {
  /** href after character-reference decoding, trimmed of surrounding white space. */
  href: string;
  /** Offsets of the anchor text in `HtmlReading.text`. */
  start: number;
  end: number;
  /** alt text of images inside the link (a button may be an image). */
  alt: string;
  /** src/class of images and the link's own title/class, lower-cased (logo detection). */
  extra: string;
  /** Drawn as a button: a background, border or padding on the link, or a coloured cell around it. */
  button: boolean;
}

export interface HtmlReading {
  text: string;
  /** Sorted, non-overlapping [start, end) pairs of emphasised text, flattened. */
  emphasis: number[];
  links: HtmlLink[];
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp', 'noscript', 'template', 'iframe', 'object', 'svg']);
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'details', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'html',
  'li', 'main', 'nav', 'ol', 'option', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'ul',
]);
const CELL = new Set(['td', 'th']);
const EMPHASIS_TAGS = new Set(['b', 'strong', 'h1', 'h2', 'h3', 'big', 'code', 'kbd', 'samp', 'tt', 'mark']);

/** Tags nested deeper than this are still read, but no longer tracked for emphasis. */
const MAX_STACK = 512;
const MAX_ATTRS = 32;
const MAX_LINKS = 1000;
/** Quoted attribute values longer than this (inline data: images) are skipped, not budgeted. */
const LONG_VALUE = 8192;
/** Raw markup scanned at most, as a multiple of the budget (covers skipped long values and raw text). */
const RAW_FACTOR = 8;

const TAG_START = /<[A-Za-z/!?]/g;
const SPACES = /[\s\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]+/;

const CLOSE_TAG = new Map<string, RegExp>();
function closeTagRe(name: string): RegExp {
  let re = CLOSE_TAG.get(name);
  if (!re) CLOSE_TAG.set(name, (re = new RegExp(`</${name}[\\s>/]`, 'gi')));
  return re;
}

const isNameChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 58 || c === 45;
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13 || c === 12;

/** Whether an element's inline style or legacy attributes make its text stand out. */
function emphasised(name: string, attrs: Map<string, string> | null): boolean {
  if (EMPHASIS_TAGS.has(name)) return true;
  if (!attrs) return false;
  if (name === 'font' && parseInt(attrs.get('size') ?? '', 10) >= 5) return true;
  const style = attrs.get('style');
  if (!style) return false;
  const s = style.toLowerCase();
  if (/font-weight\s*:\s*(?:bold|bolder|[6-9]00)/.test(s)) return true;
  if (/letter-spacing\s*:\s*(?:0?\.[1-9]|[1-9])/.test(s)) return true;
  if (/font-family\s*:[^;]{0,200}(?:mono|courier|consolas|menlo)/.test(s)) return true;
  const size = /font-size\s*:\s*(\d{1,3}(?:\.\d{1,3})?)\s*(px|pt|em|rem|%)?/.exec(s);
  if (size) {
    const v = parseFloat(size[1]!);
    const unit = size[2] ?? 'px';
    if ((unit === 'px' && v >= 20) || (unit === 'pt' && v >= 15) || ((unit === 'em' || unit === 'rem') && v >= 1.3) || (unit === '%' && v >= 130)) return true;
  }
  return /font-size\s*:\s*(?:x+-large|large)/.test(s);
}

interface Frame {
  name: string;
  emph: boolean;
  /** The element paints a box (background colour or border): a cell around a button link. */
  box: boolean;
}

const INLINE = new Set(['span', 'font', 'b', 'strong', 'em', 'i', 'u', 'center', 'small', 'big']);
const BUTTON_STYLE = /background(?:-color)?\s*:\s*(?!none|transparent|#fff(?:fff)?\b|white)|border\s*:\s*[1-9]|border-radius\s*:\s*[1-9]|padding\s*:\s*[1-9]/;

function paintsBox(attrs: Map<string, string> | null): boolean {
  if (!attrs) return false;
  const bg = attrs.get('bgcolor');
  if (bg && !/^#?(?:fff(?:fff)?|white)$/i.test(bg.trim())) return true;
  const style = attrs.get('style');
  return style !== undefined && BUTTON_STYLE.test(style.toLowerCase());
}

/** A link drawn as a button: its own box or class, or the box of the block it sits in. */
function isButton(attrs: Map<string, string> | null, stack: Frame[]): boolean {
  if (paintsBox(attrs) || /\b(?:btn|button|cta)\b/i.test(`${attrs?.get('class') ?? ''} ${attrs?.get('role') ?? ''}`)) return true;
  for (let k = stack.length - 1; k >= 0 && k >= stack.length - 4; k--) {
    const f = stack[k]!;
    if (f.box) return true;
    if (!INLINE.has(f.name)) return false;
  }
  return false;
}

/** Convert HTML to visible text plus emphasis ranges and links. Looks at about `cap` characters of markup. */
export function htmlToText(html: string, cap = PART_CAP): HtmlReading {
  const out: string[] = [];
  let outLen = 0;
  // Separator owed before the next visible character: 0 none, 1 space, 2 line break.
  let pending = 0;
  const emphasis: number[] = [];
  const links: HtmlLink[] = [];
  const stack: Frame[] = [];
  let overflow = 0;
  let emphDepth = 0;
  let link: HtmlLink | null = null;

  const emit = (raw: string): void => {
    const words = decodeEntities(raw).replace(INVISIBLE, '').split(SPACES);
    for (let w = 0; w < words.length; w++) {
      const word = words[w]!;
      if (w > 0 && pending === 0) pending = 1;
      if (word === '') continue;
      if (outLen > 0 && pending > 0) {
        out.push(pending === 2 ? '\n' : ' ');
        outLen++;
      }
      pending = 0;
      const start = outLen;
      out.push(word);
      outLen += word.length;
      if (emphDepth > 0) {
        // Extend the previous range when contiguous (a space apart), else open a new one.
        const k = emphasis.length;
        if (k > 0 && emphasis[k - 1]! >= start - 1) emphasis[k - 1] = outLen;
        else emphasis.push(start, outLen);
      }
    }
  };
  const closeLink = (): void => {
    if (!link) return;
    link.end = Math.max(link.start, outLen);
    if (links.length < MAX_LINKS) links.push(link);
    link = null;
  };

  const n = Math.min(html.length, cap * RAW_FACTOR);
  let budget = cap;
  let i = 0;
  while (i < n && budget > 0) {
    // Text runs up to the next real tag start; a lone '<' is just text.
    TAG_START.lastIndex = i;
    const m = TAG_START.exec(html);
    const textEnd = m === null || m.index >= n ? n : m.index;
    if (textEnd > i) {
      const chunkEnd = Math.min(textEnd, i + budget);
      budget -= chunkEnd - i;
      emit(html.slice(i, chunkEnd));
      i = textEnd;
      continue;
    }
    const next = html.charCodeAt(i + 1);
    if (next === 33 || next === 63) {
      // Comments (incl. Outlook conditional blocks), doctype, CDATA, processing instructions.
      const comment = html.startsWith('<!--', i);
      const close = comment ? html.indexOf('-->', i + 4) : html.indexOf('>', i + 2);
      const stop = close === -1 ? n : close + (comment ? 3 : 1);
      budget -= Math.min(stop - i, 64);
      i = stop;
      continue;
    }
    const closing = next === 47;
    let j = i + (closing ? 2 : 1);
    const nameStart = j;
    while (j < n && isNameChar(html.charCodeAt(j))) j++;
    const name = html.slice(nameStart, j).toLowerCase();
    if (name === '') {
      // "</ >" or similar: skip to '>' like a browser drops a bogus comment.
      const close = html.indexOf('>', j);
      budget -= 2;
      i = close === -1 ? n : close + 1;
      continue;
    }

    // Attributes, hand-parsed: quoted values may hold '>'; a long value costs one indexOf.
    let attrs: Map<string, string> | null = null;
    let selfClosing = false;
    let count = 0;
    const tagBudgetEnd = i + Math.max(0, budget);
    while (j < n) {
      const c = html.charCodeAt(j);
      if (c === 62) break; // '>'
      if (c === 47) { selfClosing = true; j++; continue; }
      if (isSpace(c)) { j++; continue; }
      if (count >= MAX_ATTRS || j > tagBudgetEnd) {
        // Pathological tag: stop reading attributes and jump to its end.
        const close = html.indexOf('>', j);
        j = close === -1 ? n : close;
        break;
      }
      selfClosing = false;
      const aStart = j;
      while (j < n) {
        const d = html.charCodeAt(j);
        if (isSpace(d) || d === 61 || d === 62 || d === 47) break;
        j++;
      }
      if (j === aStart) { j++; continue; }
      const aName = html.slice(aStart, j).toLowerCase();
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      let value = '';
      if (html.charCodeAt(j) === 61) {
        j++;
        while (j < n && isSpace(html.charCodeAt(j))) j++;
        const q = html[j];
        if (q === '"' || q === "'") {
          const endQ = html.indexOf(q, j + 1);
          const vEnd = endQ === -1 || endQ > n ? n : endQ;
          if (vEnd - j - 1 <= LONG_VALUE) value = html.slice(j + 1, vEnd);
          else budget += vEnd - j; // not charged below
          j = vEnd + 1;
        } else {
          const vStart = j;
          while (j < n && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 62) j++;
          value = html.slice(vStart, j);
        }
      }
      count++;
      attrs ??= new Map();
      if (!attrs.has(aName)) attrs.set(aName, value);
    }
    budget -= j + 1 - i;
    i = j + 1;

    if (closing) {
      if (name === 'a') closeLink();
      // Pop to the matching frame, looking only a few levels down: mismatched markup stays linear.
      if (overflow > 0) overflow--;
      else {
        for (let k = stack.length - 1; k >= 0 && k >= stack.length - 8; k--) {
          if (stack[k]!.name !== name) continue;
          while (stack.length > k) if (stack.pop()!.emph) emphDepth--;
          break;
        }
      }
      if (BLOCK.has(name)) pending = 2;
      else if (CELL.has(name) && pending === 0) pending = 1;
      continue;
    }

    if (RAW_TEXT.has(name) && !selfClosing) {
      // Skip to the matching close tag (case-insensitive) without reading its content as markup.
      const re = closeTagRe(name);
      re.lastIndex = i;
      const close = re.exec(html);
      i = close === null ? n : close.index;
      budget -= 16;
      continue;
    }
    if (BLOCK.has(name)) pending = 2;
    else if (CELL.has(name) && pending === 0) pending = 1;

    if (name === 'a') {
      closeLink();
      const href = decodeEntities(attrs?.get('href') ?? '', true).trim();
      const start = outLen + (pending > 0 && outLen > 0 ? 1 : 0);
      link = {
        href, start, end: start, alt: '', extra: `${attrs?.get('title') ?? ''} ${attrs?.get('class') ?? ''}`.toLowerCase(),
        button: isButton(attrs, stack),
      };
    } else if (name === 'img' && link) {
      link.alt += ` ${decodeEntities(attrs?.get('alt') ?? '', true)}`;
      link.extra += ` img ${(attrs?.get('src') ?? '').slice(0, 300)} ${attrs?.get('class') ?? ''}`.toLowerCase();
    }
    if (VOID.has(name) || selfClosing) continue;
    if (stack.length >= MAX_STACK) {
      overflow++;
      continue;
    }
    const emph = emphasised(name, attrs);
    if (emph) emphDepth++;
    stack.push({ name, emph, box: name !== 'a' && paintsBox(attrs) });
  }
  closeLink();
  return { text: out.join(''), emphasis, links };
}
