// The page's place as a URL: /dashboard/inboxes/<address>/<message id>, /dashboard/domains, …
// Navigation pushes history entries, so reload and Back keep the place.
export type Section = 'inboxes' | 'domains' | 'webhooks' | 'account';

export interface Place {
  section: Section;
  inbox: string | null;
  message: string | null;
  /** The message viewer's tab, from the hash (#html, #text, …). */
  tab: string | null;
}

const SECTIONS: Section[] = ['inboxes', 'domains', 'webhooks', 'account'];

export function parsePlace(location: Location): Place {
  const parts = location.pathname.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  if (parts[0] === 'dashboard') parts.shift();
  const section = (SECTIONS as string[]).includes(parts[0] ?? '') ? (parts[0] as Section) : 'inboxes';
  const inbox = section === 'inboxes' ? parts[1] ?? null : null;
  const message = inbox ? parts[2] ?? null : null;
  const tab = location.hash.length > 1 ? location.hash.slice(1) : null;
  return { section, inbox, message, tab };
}

export function pathOf(place: Partial<Place> & { section: Section }): string {
  let path = `/dashboard/${place.section}`;
  if (place.section === 'inboxes' && place.inbox) {
    path += `/${encodeURIComponent(place.inbox)}`;
    if (place.message) path += `/${encodeURIComponent(place.message)}`;
  }
  return place.tab ? `${path}#${place.tab}` : path;
}

let listener: (() => void) | null = null;

export function onPlaceChange(handler: () => void): void {
  listener = handler;
  window.addEventListener('popstate', handler);
}

export function go(path: string, replace = false): void {
  if (path === location.pathname + location.hash) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  listener?.();
}

/** Same-origin links inside the app navigate without a reload. */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener('click', (e) => {
    const a = (e.target as Element).closest('a');
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith('/dashboard')) return;
    e.preventDefault();
    go(url.pathname + url.hash);
  });
}
