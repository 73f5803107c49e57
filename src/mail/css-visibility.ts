// Decides from CSS whether an element's text is seen by a person: the inline style, the legacy
// attributes (bgcolor, <font color>, hidden) and the simple rules of <style> blocks. Hidden text is
// how mail smuggles instructions to a model reading the source (issue 19), so the test is broad.

/** Why an element's text is not seen; null when it is. */
export type HiddenReason = 'hidden' | 'zero_size' | 'same_colour';

export type Declarations = Map<string, string>;

/** An sRGB colour with alpha in [0, 1]. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

const NAMED: Record<string, string> = {
  white: 'fff', black: '000', silver: 'c0c0c0', gray: '808080', grey: '808080', whitesmoke: 'f5f5f5',
  snow: 'fffafa', ivory: 'fffff0', ghostwhite: 'f8f8ff', floralwhite: 'fffaf0', gainsboro: 'dcdcdc',
  lightgray: 'd3d3d3', lightgrey: 'd3d3d3', red: 'f00', green: '008000', blue: '00f', navy: '000080',
  yellow: 'ff0', orange: 'ffa500', purple: '800080', teal: '008080', maroon: '800000',
};

/** Below this WCAG contrast ratio between text and background, the text is treated as unseen. */
const MIN_CONTRAST = 1.25;
/** Offsets further than this off-screen (text-indent, left, top) hide text. */
const OFF_SCREEN_PX = 999;

/** A colour or background value longer than this is no colour a mail client draws: not read. */
const MAX_VALUE_CHARS = 256;

export function parseColour(value: string | undefined): Rgba | null {
  if (!value || value.length > MAX_VALUE_CHARS) return null;
  const v = value.trim().toLowerCase();
  if (v === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  const hex = /^#?([0-9a-f]{3,8})$/.exec(NAMED[v] ?? v);
  if (hex && (v.startsWith('#') || NAMED[v] || /^[0-9a-f]{6}$/.test(v))) {
    let h = hex[1]!;
    if (h.length === 3 || h.length === 4) h = [...h].map((c) => c + c).join('');
    if (h.length !== 6 && h.length !== 8) return null;
    const n = (i: number) => parseInt(h.slice(i, i + 2), 16);
    return { r: n(0), g: n(2), b: n(4), a: h.length === 8 ? n(6) / 255 : 1 };
  }
  const fn = /^rgba?\(\s*([\d.]+)%?[\s,]+([\d.]+)%?[\s,]+([\d.]+)%?(?:[\s,/]+([\d.]+)(%?))?\s*\)$/.exec(v);
  if (fn) {
    const alpha = fn[4] === undefined ? 1 : Number(fn[4]) / (fn[5] ? 100 : 1);
    return { r: Number(fn[1]), g: Number(fn[2]), b: Number(fn[3]), a: alpha };
  }
  return null;
}

function luminance({ r, g, b }: Rgba): number {
  const lin = (c: number) => {
    const s = Math.min(255, c) / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** True when text of colour `fg` cannot be told apart from the background `bg`. */
export function blendsIn(fg: Rgba, bg: Rgba): boolean {
  if (fg.a < 0.1) return true;
  const [hi, lo] = [luminance(fg), luminance(bg)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05) < MIN_CONTRAST;
}

/**
 * The properties hiddenBy, backgroundOf and the text colour read; no other is kept. A rule's
 * declarations are copied into every element it matches: with every property kept, one rule of
 * 45,000 declarations over 10,000 matching elements was rules × elements (issue 33), minutes of a
 * pool thread for a 900 KB mail. With these only, an element costs a bounded number of copies.
 */
const READ_PROPERTIES = new Set([
  'display', 'visibility', 'mso-hide', 'opacity', 'clip', 'text-indent', 'position', 'left', 'top', 'font-size',
  'overflow', 'width', 'height', 'max-width', 'max-height', 'line-height', 'background-color', 'background', 'color',
]);

/** `a: b; c: d` → Map of the properties read here, names lower-cased, `!important` dropped (inline style wins anyway). */
export function parseDeclarations(style: string, into: Declarations = new Map()): Declarations {
  for (const part of style.split(';')) {
    const colon = part.indexOf(':');
    if (colon <= 0) continue;
    const name = part.slice(0, colon).trim().toLowerCase();
    if (!READ_PROPERTIES.has(name)) continue;
    const value = part.slice(colon + 1).replace(/!\s*important/i, '').trim().toLowerCase();
    if (name && value) into.set(name, value);
  }
  return into;
}

/** A length in px (em/rem taken as 16 px, pt as 4/3 px, % of 16 px); NaN when not a length. */
function px(value: string | undefined): number {
  if (value === undefined) return NaN;
  const m = /^(-?[\d.]+)(px|pt|em|rem|%|)?$/.exec(value.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  switch (m[2]) {
    case 'pt': return (n * 4) / 3;
    case 'em': case 'rem': return n * 16;
    case '%': return (n * 16) / 100;
    default: return n;
  }
}

/** Whether the declarations of one element hide its content (ancestors are the caller's concern). */
export function hiddenBy(d: Declarations): HiddenReason | null {
  if (d.get('display') === 'none') return 'hidden';
  const visibility = d.get('visibility');
  if (visibility === 'hidden' || visibility === 'collapse') return 'hidden';
  if (d.get('mso-hide') === 'all') return 'hidden';
  const opacity = d.get('opacity');
  if (opacity !== undefined && Number.parseFloat(opacity) < 0.05) return 'hidden';
  if (/rect\(\s*0/.test(d.get('clip') ?? '')) return 'hidden';
  if (px(d.get('text-indent')) <= -OFF_SCREEN_PX) return 'hidden';
  const position = d.get('position');
  if ((position === 'absolute' || position === 'fixed') && (px(d.get('left')) <= -OFF_SCREEN_PX || px(d.get('top')) <= -OFF_SCREEN_PX)) return 'hidden';
  if (px(d.get('font-size')) < 2) return 'zero_size';
  const clipped = d.get('overflow') === 'hidden';
  if (clipped && ['width', 'height', 'max-width', 'max-height', 'line-height'].some((p) => px(d.get(p)) <= 0.5)) return 'zero_size';
  return null;
}

const isLetter = (c: number) => c >= 97 && c <= 122;
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

/**
 * The words of a `background` shorthand that may be colours (`#hex`, `rgb(…)`, `rgba(…)`, names),
 * in one forward pass: `rgb(` repeated without a `)` costs one search, not one per repeat.
 */
function* colourTokens(value: string): Generator<string> {
  let i = 0;
  while (i < value.length) {
    const c = value.charCodeAt(i);
    if (c === 35) {
      let j = i + 1;
      while (j < value.length && isHex(value.charCodeAt(j))) j++;
      if (j - i - 1 >= 3 && j - i - 1 <= 8) yield value.slice(i, j);
      i = j;
    } else if (value.startsWith('rgb(', i) || value.startsWith('rgba(', i)) {
      const close = value.indexOf(')', i);
      if (close < 0) return;
      yield value.slice(i, close + 1);
      i = close + 1;
    } else if (isLetter(c)) {
      let j = i + 1;
      while (j < value.length && isLetter(value.charCodeAt(j))) j++;
      yield value.slice(i, j);
      i = j;
    } else {
      i++;
    }
  }
}

/** The background colour an element paints, if it declares one. */
export function backgroundOf(d: Declarations, bgcolorAttr: string | undefined): Rgba | null {
  const own = parseColour(d.get('background-color'));
  if (own) return own;
  const shorthand = d.get('background');
  if (shorthand) {
    for (const token of colourTokens(shorthand)) {
      const c = parseColour(token);
      if (c) return c;
    }
  }
  return parseColour(bgcolorAttr);
}

/**
 * CSS with its comments taken out, in one forward pass: an unclosed comment runs to the end, so
 * `/* ` repeated (issue 33) costs one search, where a lazy regex rescanned the rest at each.
 */
export function withoutComments(css: string): string {
  const parts: string[] = [];
  let from = 0;
  for (let open = css.indexOf('/*'); open >= 0; open = css.indexOf('/*', from)) {
    parts.push(css.slice(from, open));
    const close = css.indexOf('*/', open + 2);
    if (close < 0) return parts.join('');
    from = close + 2;
  }
  parts.push(css.slice(from));
  return parts.join('');
}

/**
 * Top-level rules of <style> blocks whose selectors are simple (`tag`, `.class`, `#id`,
 * `tag.class`). Rules inside @media and other at-blocks are skipped: they apply to some screens only,
 * and hiding desktop text because a phone layout hides it would drop text a person sees.
 */
export class StyleRules {
  private readonly rules = new Map<string, Declarations>();
  private count = 0;
  private static readonly MAX_RULES = 2000;

  add(css: string): void {
    const text = withoutComments(css);
    let depth = 0;
    let start = 0;
    let selector = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '{') {
        if (depth === 0) selector = text.slice(start, i).trim();
        depth++;
        start = i + 1;
      } else if (c === '}') {
        depth = Math.max(0, depth - 1);
        if (depth === 0 && selector && !selector.startsWith('@')) this.rule(selector, text.slice(start, i));
        if (depth === 0) selector = '';
        start = i + 1;
      }
    }
  }

  private rule(selectors: string, body: string): void {
    for (const raw of selectors.split(',')) {
      const s = raw.trim().toLowerCase();
      if (!/^(?:[a-z][a-z0-9]*)?(?:[.#][\w-]+)?$/.test(s) || s === '') continue;
      if (this.count++ >= StyleRules.MAX_RULES) return;
      let d = this.rules.get(s);
      if (!d) this.rules.set(s, (d = new Map()));
      parseDeclarations(body, d);
    }
  }

  get empty(): boolean {
    return this.rules.size === 0;
  }

  /** The declarations the rules give an element, in rising specificity (tag, class, id). */
  matching(tag: string, attrs: Record<string, string>, into: Declarations): void {
    const apply = (key: string) => {
      const d = this.rules.get(key);
      if (d) for (const [k, v] of d) into.set(k, v);
    };
    apply(tag);
    const classes = (attrs.class ?? '').toLowerCase().split(/\s+/).filter(Boolean).slice(0, 16);
    for (const c of classes) {
      apply(`.${c}`);
      apply(`${tag}.${c}`);
    }
    const id = attrs.id?.toLowerCase();
    if (id) {
      apply(`#${id}`);
      apply(`${tag}#${id}`);
    }
  }
}
