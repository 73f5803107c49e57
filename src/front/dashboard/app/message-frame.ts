// A message's HTML as a sandboxed srcdoc frame. The sandbox has no allow-scripts (nothing runs) and
// no allow-same-origin (the frame cannot reach the page); the frame's own CSP loads nothing remote
// (images only from data:) until the user allows remote images for that one message. Tags that
// act without script (meta refresh, base) are dropped before the HTML reaches the frame.
import { h } from './dom.js';

function framePolicy(remoteImages: boolean): string {
  const img = remoteImages ? 'data: https: http:' : 'data:';
  return `default-src 'none'; img-src ${img}; style-src 'unsafe-inline'; font-src data:; form-action 'none'; base-uri 'none'`;
}

/** DOMParser documents are inert: parsing here runs no script and fetches nothing. */
function prepare(html: string, remoteImages: boolean): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const el of doc.querySelectorAll('meta[http-equiv], base, script, link[rel~="preload"], link[rel~="prefetch"], link[rel~="dns-prefetch"], link[rel~="preconnect"]')) el.remove();
  for (const el of doc.querySelectorAll('*')) {
    for (const attr of [...el.attributes]) if (attr.name.startsWith('on')) el.removeAttribute(attr.name);
  }
  // Links open outside the frame (the sandbox allows popups, not navigating the page).
  for (const a of doc.querySelectorAll('a[href]')) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer');
  }
  const csp = doc.createElement('meta');
  csp.httpEquiv = 'Content-Security-Policy';
  csp.content = framePolicy(remoteImages);
  const referrer = doc.createElement('meta');
  referrer.name = 'referrer';
  referrer.content = 'no-referrer';
  doc.head.prepend(csp, referrer);
  return `<!doctype html>${doc.documentElement.outerHTML}`;
}

/** Whether the HTML would load anything remote, so the page offers "show remote images". */
export function hasRemoteContent(html: string): boolean {
  return /(?:src|srcset|background|poster)\s*=\s*["']?\s*(?:https?:)?\/\//i.test(html) || /url\(\s*["']?\s*(?:https?:)?\/\//i.test(html)
    || /<link\b[^>]*href\s*=\s*["']?\s*(?:https?:)?\/\//i.test(html);
}

export function messageFrame(html: string, remoteImages: boolean, title: string): HTMLIFrameElement {
  const frame = h('iframe', {
    class: 'mail',
    title,
    sandbox: 'allow-popups allow-popups-to-escape-sandbox',
    referrerpolicy: 'no-referrer',
  });
  frame.srcdoc = prepare(html, remoteImages);
  return frame;
}

/** Plain text of an HTML mail, for mail that carries no text part. */
export function textFromHtml(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const el of doc.querySelectorAll('style, script, head, title')) el.remove();
  for (const br of doc.querySelectorAll('br')) br.replaceWith('\n');
  for (const a of doc.querySelectorAll('a[href]')) {
    const href = a.getAttribute('href') ?? '';
    if (/^https?:/i.test(href) && a.textContent?.trim() !== href) a.append(` (${href})`);
  }
  for (const block of doc.querySelectorAll('p, div, tr, li, h1, h2, h3, h4, h5, h6, table, section, article, blockquote')) {
    block.append('\n');
  }
  return (doc.body?.textContent ?? '').replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}
