// Small DOM helpers: build elements without HTML strings (so no message text is ever parsed as
// markup), announce to the live regions, copy buttons, and a confirmation dialog.
type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | number | EventListener | undefined | null>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

/** Errors go to the assertive region at the top of the page; other news to the polite one. */
export function showError(message: string): void {
  $('status').textContent = message;
}

export function clearError(): void {
  $('status').textContent = '';
}

export function announce(message: string): void {
  $('notice').textContent = message;
}

export function copyButton(text: string, label: string): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'small', 'aria-label': label }, 'Copy');
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
      announce(`${label}: copied`);
    } catch {
      showError('The browser refused the clipboard; select the text and copy it instead.');
    }
  });
  return button;
}

/** A modal confirmation; resolves true when the user confirms. */
export function confirmDialog(title: string, body: Child[], confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h('dialog', { 'aria-labelledby': 'confirm-title' },
      h('h2', { id: 'confirm-title' }, title),
      ...body,
      h('form', { method: 'dialog', class: 'row' },
        h('button', { value: 'cancel', type: 'submit' }, 'Cancel'),
        h('button', { value: 'ok', type: 'submit', class: 'primary' }, confirmLabel)));
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'ok');
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Time for today's mail, the date otherwise: short enough for a list row. */
export function formatShort(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

export function meta(name: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
}

/** A paperclip drawn inline (no icon font, no request): marks mail with attachments. */
export function attachmentIcon(): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  for (const [k, v] of Object.entries({ viewBox: '0 0 24 24', width: '14', height: '14', role: 'img', 'aria-label': 'has attachments', class: 'icon' })) svg.setAttribute(k, v);
  const title = document.createElementNS(ns, 'title');
  title.textContent = 'has attachments';
  const path = document.createElementNS(ns, 'path');
  for (const [k, v] of Object.entries({ d: 'M9 7v9a3 3 0 0 0 6 0V5a5 5 0 0 0-10 0v11a7 7 0 0 0 14 0V7', fill: 'none', stroke: 'currentColor', 'stroke-width': '2', 'stroke-linecap': 'round' })) path.setAttribute(k, v);
  svg.append(title, path);
  return svg;
}

/**
 * Live refreshes and user actions may load the same list at once: only the newest load's answer
 * is shown, so a slow older answer never replaces a newer one.
 */
export class Latest {
  private n = 0;

  /** Starts a load; the function says whether it is still the newest. */
  begin(): () => boolean {
    const mine = ++this.n;
    return () => mine === this.n;
  }
}
