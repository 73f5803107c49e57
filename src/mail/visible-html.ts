// Reads mail HTML for the injection-safe view: only the text a person sees (hidden, zero-size and
// background-coloured text, comments, scripts and styles dropped), with every visible link cut out
// as a numbered reference. The only importer of htmlparser2 (a streaming tokenizer that closes
// elements the way browsers do), so no DOM is built and memory stays flat.
import { Parser } from 'htmlparser2';
import { backgroundOf, blendsIn, hiddenBy, parseColour, parseDeclarations, StyleRules, type HiddenReason, type Rgba } from './css-visibility.js';

export interface VisibleLink {
  text: string;
  href: string;
}

export interface VisibleHtml {
  /** Visible text, blocks on their own lines, each visible link followed by ` [n]`. */
  text: string;
  /** links[n - 1] is link [n]. */
  links: VisibleLink[];
  /** What was dropped and why (for the warnings). */
  removed: Set<HiddenReason | 'comment' | 'script' | 'nesting'>;
  /** Visible text went past the cap and was cut. */
  truncated: boolean;
}

interface Frame {
  name: string;
  hidden: HiddenReason | null;
  /** Why its text is unseen (hidden, or the colour blends into the background), computed once. */
  unseen: HiddenReason | null;
  /** Content no reader sees and nobody hides on purpose (head, title): dropped without a warning. */
  silent: boolean;
  colour: Rgba | null;
  background: Rgba | null;
  link: { href: string; start: number; alt: string; image: boolean } | null;
  /** The nearest frame (itself or an ancestor) that holds a link, so an image finds it at once. */
  holder: Frame | null;
}

const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'details', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'html',
  'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'ul',
]);
/** Elements whose content is never shown as text. */
const UNSEEN = new Set(['template', 'noscript', 'object', 'iframe', 'svg']);
const SILENT = new Set(['head', 'title', 'meta', 'link', 'base']);
const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };
const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };
const MAX_DEPTH = 1024;
/** Characters of a link's label and of its URL read at most (the safe view shows less). */
const MAX_LABEL_CHARS = 300;
const MAX_HREF_CHARS = 4_000;
const WEB_LINK = /^\s*(?:https?:|mailto:)/i;
/** Outlook conditional comments carry markup for Outlook only, not hidden prose. */
const CONDITIONAL = /^\s*\[if |^\s*<!\[endif\]|^\s*\[endif\]/i;

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements a second one of the same name closes (so `<p><p>` is two siblings, not nesting). */
const SELF_CLOSING_SIBLINGS = new Set(['p', 'li', 'option', 'tr', 'td', 'th', 'dt', 'dd']);
const isNameStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 48 && c <= 57) || c === 45;

/**
 * The markup with every opening tag deeper than `maxDepth` elements, and every closing tag that
 * closes nothing, taken out (their text stays), and whether any was. htmlparser2 keeps its open
 * elements in an array it shifts and unshifts, so each tag costs time in proportion to the depth:
 * 10 MB of unclosed `<div>` took seconds of a pool thread. No mail a person reads nests a thousand
 * elements deep. The scan closes fewer elements than the parser does, so it may over-count the
 * depth but never under-counts it. One forward pass (issue 33): a tag is `<name` up to the next
 * `>`, and once no `>` is left nothing after is a tag, so `<a ` repeated costs no rescans.
 */
export function flattenDeepNesting(html: string, maxDepth: number): { html: string; flattened: boolean } {
  const open: string[] = [];
  // How many of each name are open, so a closing tag nothing opened costs no search of `open`.
  const openCount = new Map<string, number>();
  const popTo = (at: number) => {
    while (open.length > at) {
      const name = open.pop()!;
      openCount.set(name, openCount.get(name)! - 1);
    }
  };
  const kept: string[] = [];
  let from = 0;
  let i = html.indexOf('<');
  while (i >= 0) {
    const closing = html.charCodeAt(i + 1) === 47;
    const nameStart = i + (closing ? 2 : 1);
    if (!isNameStart(html.charCodeAt(nameStart))) {
      i = html.indexOf('<', i + 1);
      continue;
    }
    let j = nameStart + 1;
    while (j < html.length && isNameChar(html.charCodeAt(j))) j++;
    const end = html.indexOf('>', j);
    if (end < 0) break;
    const name = html.slice(nameStart, j).toLowerCase();
    const selfClosing = html.charCodeAt(end - 1) === 47;
    let drop = false;
    if (closing) {
      if (openCount.get(name)) popTo(open.lastIndexOf(name));
      // A closing tag nothing opened: the parser would search its whole stack for it, then ignore it.
      else drop = !VOID.has(name);
    } else if (!selfClosing && !VOID.has(name)) {
      // Like the parser, only an open sibling on top is closed (never under-count the depth).
      if (SELF_CLOSING_SIBLINGS.has(name) && open[open.length - 1] === name) popTo(open.length - 1);
      if (open.length < maxDepth) {
        open.push(name);
        openCount.set(name, (openCount.get(name) ?? 0) + 1);
      } else {
        drop = true;
      }
    }
    if (drop) {
      kept.push(html.slice(from, i));
      from = end + 1;
    }
    i = html.indexOf('<', end + 1);
  }
  if (kept.length === 0) return { html, flattened: false };
  kept.push(html.slice(from));
  return { html: kept.join(''), flattened: true };
}

/**
 * The visible text as it is written, in pieces: a link's label is read from it when the link
 * closes, and slicing one growing string there flattened all of it each time (nested links).
 */
class TextBuffer {
  private readonly parts: string[] = [];
  private readonly starts: number[] = [];
  length = 0;

  push(s: string): void {
    this.parts.push(s);
    this.starts.push(this.length);
    this.length += s.length;
  }

  /** At most `max` characters from `start`. */
  slice(start: number, max: number): string {
    let lo = 0;
    let hi = this.parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= start) lo = mid;
      else hi = mid - 1;
    }
    const out: string[] = [];
    let length = 0;
    for (let i = lo; i < this.parts.length && length < max; i++) {
      const part = i === lo ? this.parts[i]!.slice(start - this.starts[i]!, start - this.starts[i]! + max) : this.parts[i]!.slice(0, max - length);
      out.push(part);
      length += part.length;
    }
    return out.join('');
  }

  toString(): string {
    return this.parts.join('');
  }
}

export function readVisibleHtml(html: string, maxChars: number): VisibleHtml {
  const rules = new StyleRules();
  const removed = new Set<HiddenReason | 'comment' | 'script' | 'nesting'>();
  const flat = flattenDeepNesting(html, MAX_DEPTH);
  if (flat.flattened) {
    html = flat.html;
    removed.add('nesting');
  }
  const links: VisibleLink[] = [];
  const text = new TextBuffer();
  let truncated = false;
  // Separator owed before the next visible word: 0 none, 1 space, 2 line break.
  let owed = 0;
  const root: Frame = { name: '#root', hidden: null, unseen: null, silent: false, colour: null, background: null, link: null, holder: null };
  const stack: Frame[] = [root];
  let styleText: string | null = null;
  let overflow = 0;

  const top = () => stack[stack.length - 1]!;
  const write = (s: string) => {
    text.push(s);
  };
  const unseen = (frame: Frame, parent: Frame): HiddenReason | null => {
    if (frame.hidden) return frame.hidden;
    if (frame.colour === parent.colour && frame.background === parent.background) return parent.unseen;
    return blendsIn(frame.colour ?? BLACK, frame.background ?? WHITE) ? 'same_colour' : null;
  };

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        const parent = top();
        if (stack.length >= MAX_DEPTH) {
          overflow++;
          return;
        }
        const d = new Map<string, string>();
        if (!rules.empty) rules.matching(name, attrs, d);
        if (attrs.style) parseDeclarations(attrs.style, d);
        let hidden = parent.hidden;
        if (!hidden) {
          if ('hidden' in attrs || UNSEEN.has(name) || name === 'script' || (name === 'input' && attrs.type === 'hidden')) hidden = 'hidden';
          else if (d.size > 0) hidden = hiddenBy(d);
        }
        const frame: Frame = {
          name, hidden, unseen: null, silent: parent.silent || SILENT.has(name), colour: parent.colour, background: parent.background, link: null, holder: parent.holder,
        };
        // Most elements style nothing: they take their parent's colours (and verdict) as they are.
        if (d.size > 0 || attrs.bgcolor !== undefined || (name === 'font' && attrs.color !== undefined)) {
          frame.colour = parseColour(d.get('color')) ?? (name === 'font' ? parseColour(attrs.color) : null) ?? parent.colour;
          const background = backgroundOf(d, attrs.bgcolor);
          if (background && background.a >= 0.1) frame.background = background;
        }
        frame.unseen = unseen(frame, parent);
        if (name === 'style') styleText = '';
        if (BLOCK.has(name)) owed = 2;
        else if ((name === 'td' || name === 'th') && owed === 0) owed = 1;
        // Only web and mail links are listed: javascript:, data: and relative hrefs lead nowhere an agent should go.
        if (name === 'a' && attrs.href !== undefined && WEB_LINK.test(attrs.href)) {
          frame.link = { href: attrs.href.slice(0, MAX_HREF_CHARS).trim(), start: text.length, alt: '', image: false };
          frame.holder = frame;
        }
        const link = frame.holder?.link;
        if (name === 'img' && link) {
          link.image = true;
          if (attrs.alt && link.alt.length < MAX_LABEL_CHARS) link.alt += ` ${attrs.alt.slice(0, MAX_LABEL_CHARS)}`;
        }
        stack.push(frame);
      },
      onclosetag(name) {
        if (overflow > 0) {
          overflow--;
          return;
        }
        if (stack.length <= 1) return;
        const frame = stack.pop()!;
        if (name === 'style' && styleText !== null) {
          rules.add(styleText);
          styleText = null;
        }
        if (BLOCK.has(name)) owed = 2;
        else if ((name === 'td' || name === 'th') && owed === 0) owed = 1;
        if (frame.link && !frame.unseen && !frame.silent && !truncated) {
          // A link with nothing to see (no text, no image) is one no person can click: not listed.
          // The label is shown cut to a line; reading past that would make nested links quadratic.
          const label = text.slice(frame.link.start, MAX_LABEL_CHARS).trim() || frame.link.alt.trim() || (frame.link.image ? '(image)' : '');
          if (label) {
            links.push({ text: label, href: frame.link.href });
            write(` [${links.length}]`);
          }
        }
      },
      ontext(data) {
        const frame = top();
        if (frame.name === 'style') {
          if (styleText !== null && styleText.length < maxChars) styleText += data;
          return;
        }
        if (frame.name === 'script') {
          if (data.trim()) removed.add('script');
          return;
        }
        if (frame.silent) return;
        const words = data.split(/[\s\u00A0]+/);
        const reason = frame.unseen;
        if (reason) {
          // Only text with letters or digits counts: preheader padding (&zwnj;&nbsp;…) says nothing.
          if (/[\p{L}\p{N}]/u.test(data)) removed.add(reason);
          return;
        }
        for (let i = 0; i < words.length; i++) {
          if (i > 0 && owed === 0) owed = 1;
          const word = words[i]!;
          if (word === '') continue;
          if (text.length >= maxChars) {
            truncated = true;
            continue;
          }
          if (text.length > 0 && owed > 0) write(owed === 2 ? '\n' : ' ');
          owed = 0;
          write(word);
        }
      },
      oncomment(data) {
        if (data.trim() && !CONDITIONAL.test(data)) removed.add('comment');
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  return { text: text.toString(), links, removed, truncated };
}
