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
const WEB_LINK = /^\s*(?:https?:|mailto:)/i;
/** Outlook conditional comments carry markup for Outlook only, not hidden prose. */
const CONDITIONAL = /^\s*\[if |^\s*<!\[endif\]|^\s*\[endif\]/i;

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements a second one of the same name closes (so `<p><p>` is two siblings, not nesting). */
const SELF_CLOSING_SIBLINGS = new Set(['p', 'li', 'option', 'tr', 'td', 'th', 'dt', 'dd']);
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(\/?)>/g;

/**
 * The markup with every opening tag deeper than `maxDepth` elements, and every closing tag that
 * closes nothing, taken out (their text stays), and whether any was. htmlparser2 keeps its open elements in an array it shifts and unshifts, so
 * each tag costs time in proportion to the depth: 10 MB of unclosed `<div>` took seconds of a pool
 * thread. No mail a person reads nests a thousand elements deep. The scan closes fewer elements than
 * the parser does, so it may over-count the depth but never under-counts it.
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
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
    const name = m[2]!.toLowerCase();
    if (m[1]) {
      if (openCount.get(name)) {
        popTo(open.lastIndexOf(name));
        continue;
      }
      // A closing tag nothing opened: the parser would search its whole stack for it, then ignore it.
      if (VOID.has(name)) continue;
    } else if (m[3] || VOID.has(name)) {
      continue;
    } else {
      // Like the parser, only an open sibling on top is closed (never under-count the depth).
      if (SELF_CLOSING_SIBLINGS.has(name) && open[open.length - 1] === name) popTo(open.length - 1);
      if (open.length < maxDepth) {
        open.push(name);
        openCount.set(name, (openCount.get(name) ?? 0) + 1);
        continue;
      }
    }
    kept.push(html.slice(from, m.index));
    from = m.index + m[0].length;
  }
  if (kept.length === 0) return { html, flattened: false };
  kept.push(html.slice(from));
  return { html: kept.join(''), flattened: true };
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
  let text = '';
  let truncated = false;
  // Separator owed before the next visible word: 0 none, 1 space, 2 line break.
  let owed = 0;
  const root: Frame = { name: '#root', hidden: null, unseen: null, silent: false, colour: null, background: null, link: null };
  const stack: Frame[] = [root];
  let styleText: string | null = null;
  let overflow = 0;

  const top = () => stack[stack.length - 1]!;
  const write = (s: string) => {
    text += s;
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
          name, hidden, unseen: null, silent: parent.silent || SILENT.has(name), colour: parent.colour, background: parent.background, link: null,
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
        if (name === 'a' && attrs.href !== undefined && WEB_LINK.test(attrs.href)) frame.link = { href: attrs.href.trim(), start: text.length, alt: '', image: false };
        if (name === 'img') {
          const holder = stack.findLast((f) => f.link);
          if (holder?.link) {
            holder.link.image = true;
            if (attrs.alt) holder.link.alt += ` ${attrs.alt}`;
          }
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
          const label = text.slice(frame.link.start).trim() || frame.link.alt.trim() || (frame.link.image ? '(image)' : '');
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
  return { text, links, removed, truncated };
}
