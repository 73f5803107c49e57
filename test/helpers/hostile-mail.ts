// Hostile mail shapes (issue 33): bodies built to make a naive parser, safe-view or extraction pass
// quadratic, each as raw RFC 5322 bytes. Shared by the attack tests and the hostile-ingest bench.

const MiB = 1024 * 1024;

/** `unit` repeated to exactly `bytes` characters. */
export function repeatTo(unit: string, bytes: number): string {
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

function message(from: string, to: string, subject: string, headers: string, body: string, contentType = 'text/html; charset=utf-8'): Buffer {
  return Buffer.from(`From: ${from}\r\nTo: ${to}\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\n${headers}Content-Type: ${contentType}\r\n\r\n${body}\r\n`);
}

/** `<multipart>` nested `depth` levels deep, a text part at the bottom. */
function deepMime(depth: number, filler: string): { contentType: string; body: string } {
  let body = `Content-Type: text/plain\r\n\r\n${filler}\r\n`;
  for (let i = depth - 1; i >= 0; i--) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}--b${i}--\r\n`;
  const split = body.indexOf('\r\n\r\n');
  return { contentType: body.slice('Content-Type: '.length, split), body: body.slice(split + 4) };
}

export interface HostileShape {
  name: string;
  /** mailparser refuses it (MIME too deep, header section too large): it is kept unparsed, by design. */
  unparsable?: true;
  /** The raw message, addressed `from` → `to`. */
  build(from: string, to: string): Buffer;
}

const html = (name: string, body: () => string): HostileShape => ({ name, build: (from, to) => message(from, to, name, '', body()) });

/** Every shape the issue names, at the sizes it reports (or near the 10 MiB limit). */
export const HOSTILE_SHAPES: HostileShape[] = [
  html('a-space', () => repeatTo('<a ', MiB)),
  html('style-comment', () => `<style>${repeatTo('/* ', MiB)}</style><p>hello</p>`),
  html('nested-a-href', () => repeatTo('<a href=', 4.7 * MiB)),
  html('nested-a-href-quoted', () => repeatTo('<a href="https://x.test/">x', 4.7 * MiB)),
  html('unclosed-tags', () => repeatTo('<div', 3.7 * MiB)),
  html('unclosed-elements', () => repeatTo('<div><span>', 3.7 * MiB)),
  html('comment-run', () => repeatTo('<!-- <!-- -- ', 4 * MiB)),
  html('entity-flood', () => repeatTo('&amp;&#x41;&#65;&', 4 * MiB)),
  html('css-functions', () => `<p style="background: ${repeatTo('rgb(', 2 * MiB)}">x</p>`),
  // One rule of 45,000 declarations and 10,000 elements it matches 16 times each: the safe view
  // copied a rule's declarations into every element it matched (rules × elements).
  html('css-rule-fanout', () => `<style>.c{${Array.from({ length: 45_000 }, (_, i) => `p${i}:0`).join(';')}}</style>${repeatTo(`<b class="${'c '.repeat(16)}">x</b>`, 480 * 1024)}`),
  html('spaces-before-newline', () => `<pre>${repeatTo(' ', 2 * MiB)}</pre>`),
  {
    name: 'long-line-text',
    build: (from, to) => message(from, to, 'long-line-text', '', repeatTo('1234 https://a.test/ ', 8 * MiB), 'text/plain; charset=utf-8'),
  },
  {
    name: 'spaces-text',
    build: (from, to) => message(from, to, 'spaces-text', '', `${repeatTo(' \t', 1 * MiB)}x`, 'text/plain; charset=utf-8'),
  },
  {
    name: 'deep-mime',
    unparsable: true,
    build: (from, to) => {
      const deep = deepMime(2000, 'bottom');
      return message(from, to, 'deep-mime', '', deep.body, deep.contentType);
    },
  },
  {
    name: 'huge-headers',
    unparsable: true,
    build: (from, to) => message(from, to, 'huge-headers', repeatTo('X-Filler: a b c d e f g h\r\n', 6 * MiB), '<p>hi</p>'),
  },
  {
    name: 'folded-header',
    unparsable: true,
    build: (from, to) => message(from, to, 'folded-header', `X-Folded: a${repeatTo('\r\n b', 6 * MiB)}\r\n`, '<p>hi</p>'),
  },
];
