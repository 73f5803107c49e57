// One message: its code and link on top (with copy buttons and the link's host), then tabs for
// HTML, Text, Headers, Source and Attachments (role=tablist, arrow keys move between tabs).
import { api, apiBlob, enc, errorText } from './api.js';
import { copyButton, formatBytes, formatDate, h, showError } from './dom.js';
import { hasRemoteContent, messageFrame, textFromHtml } from './message-frame.js';
import type { FullMessage } from '../../../contract/shapes.js';

/** What each verdict means for an agent, in the words of docs/security.md "Trusting mail". */
const VERDICT: Record<NonNullable<FullMessage['auth']>, string> = {
  pass: 'The sender is authenticated: its domain passed DMARC, or an aligned SPF or DKIM check.',
  fail: 'The sender failed authentication: the From domain is likely forged. Waits with require_auth are not given this message.',
  none: 'The sender could not be authenticated (no policy or signature to check). Waits with require_auth still take it; an agent that needs more checks for pass.',
  temperror: 'Sender authentication could not finish (a DNS failure or time-out). Waits with require_auth are not given this message.',
};

const TABS = ['html', 'text', 'headers', 'source', 'attachments'] as const;
type Tab = (typeof TABS)[number];
const TAB_LABEL: Record<Tab, string> = { html: 'HTML', text: 'Text', headers: 'Headers', source: 'Source', attachments: 'Attachments' };

/** Messages whose remote images the user allowed, for this tab's life. */
const remoteAllowed = new Set<string>();

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

function messagePath(m: FullMessage): string {
  return `/v1/inboxes/${enc(m.inbox)}/messages/${enc(m.id)}`;
}

async function download(m: FullMessage, n: number, name: string): Promise<void> {
  try {
    const blob = await apiBlob(`${messagePath(m)}/attachments/${n}`);
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (err) {
    showError(errorText(err));
  }
}

function panelFor(m: FullMessage, tab: Tab, rerender: () => void): Node {
  switch (tab) {
    case 'html': {
      if (!m.html) return h('p', { class: 'muted' }, 'This message has no HTML part.');
      const allowed = remoteAllowed.has(m.id);
      const offer = !allowed && hasRemoteContent(m.html)
        ? h('p', { class: 'warn row' }, 'Remote images are blocked for this message. ',
          h('button', { type: 'button', class: 'small', id: 'show-remote', onclick: () => { remoteAllowed.add(m.id); rerender(); } }, 'Show remote images'))
        : null;
      return h('div', {}, offer, messageFrame(m.html, allowed, `HTML of “${m.subject || '(no subject)'}”`));
    }
    case 'text': {
      // An HTML-only mail (or one whose text part is blank) shows the words of its HTML.
      const fromHtml = !m.text?.trim() && Boolean(m.html);
      const text = fromHtml ? textFromHtml(m.html!) || (m.safe_text ?? '') : (m.text ?? '');
      return h('div', {}, fromHtml ? h('p', { class: 'muted' }, 'No text part: the words of the HTML.') : null, h('pre', { id: 'message-text' }, text || '(empty)'));
    }
    case 'headers':
      return h('div', { class: 'table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Header'), h('th', { scope: 'col' }, 'Value'))),
        h('tbody', {}, ...Object.entries(m.headers).map(([k, v]) => h('tr', {}, h('th', { scope: 'row', class: 'mono' }, k), h('td', { class: 'mono' }, String(v)))))));
    case 'source': {
      const pre = h('pre', { id: 'message-source' }, 'Loading…');
      apiBlob(`${messagePath(m)}/raw`).then((b) => b.text()).then((t) => (pre.textContent = t), (err) => (pre.textContent = errorText(err)));
      return pre;
    }
    case 'attachments':
      if (m.attachments.length === 0) return h('p', { class: 'muted' }, 'No attachments.');
      return h('ul', { class: 'list' }, ...m.attachments.map((a, n) => {
        const name = a.filename ?? `attachment-${n}`;
        return h('li', { class: 'row', style: 'padding:6px 0' },
          h('span', { class: 'grow addr' }, name), h('span', { class: 'muted' }, `${a.content_type} · ${formatBytes(a.size)}`),
          h('button', { type: 'button', class: 'small', 'aria-label': `Download ${name}`, onclick: () => void download(m, n, name) }, 'Download'));
      }));
  }
}

/** The sender-authentication verdict and the safe view's warnings: why an agent may be refused this message. */
function trust(m: FullMessage): HTMLElement | null {
  if (!m.auth && !m.warnings?.length) return null;
  const a = m.authentication;
  const checks = a
    ? `SPF ${a.spf} · DKIM ${a.dkim.length ? a.dkim.map((d) => `${d.result} (${d.domain})`).join(', ') : 'none'} · DMARC ${a.dmarc}${a.dmarc_policy ? ` (p=${a.dmarc_policy})` : ''}${a.from_domain ? ` for ${a.from_domain}` : ''}${a.pending ? ' · still checking' : ''}`
    : '';
  return h('section', { class: 'trust', id: 'message-trust', 'aria-label': 'Sender authentication and warnings' },
    m.auth ? h('p', { class: `verdict verdict-${m.auth}` },
      h('strong', { id: 'auth-verdict' }, `Sender ${m.auth === 'pass' ? 'verified' : m.auth === 'fail' ? 'failed authentication' : m.auth === 'temperror' ? 'not checked (temporary error)' : 'not authenticated'}`),
      ` (auth: ${m.auth}). `, VERDICT[m.auth]) : null,
    checks ? h('p', { class: 'muted mono', id: 'auth-checks' }, checks) : null,
    m.warnings?.length ? h('div', { class: 'warn', id: 'message-warnings' },
      h('strong', {}, 'Warnings from the safe view'),
      h('ul', {}, ...m.warnings.map((w) => h('li', {}, w)))) : null);
}

export function renderMessage(m: FullMessage, requested: string | null, onTab: (tab: string) => void): HTMLElement {
  const initial: Tab = (TABS as readonly string[]).includes(requested ?? '') ? (requested as Tab) : m.html ? 'html' : 'text';
  const cue = h('div', { class: 'cue' },
    m.otp ? h('div', { class: 'item' }, h('span', { class: 'muted' }, 'Code'), h('span', { class: 'otp big value', id: 'cue-otp' }, m.otp), copyButton(m.otp, `Copy code ${m.otp}`)) : null,
    m.verification_link ? h('div', { class: 'item' }, h('span', { class: 'muted' }, 'Link'),
      h('strong', { id: 'cue-host' }, hostOf(m.verification_link)),
      h('a', { class: 'value mono', href: m.verification_link, target: '_blank', rel: 'noopener noreferrer' }, m.verification_link),
      copyButton(m.verification_link, 'Copy verification link')) : null);
  const tablist = h('div', { role: 'tablist', 'aria-label': 'Message views' });
  const panel = h('div', { role: 'tabpanel', id: 'message-panel', tabindex: '0' });
  const tabs = TABS.map((t) => h('button', {
    type: 'button', role: 'tab', id: `tab-${t}`, 'aria-controls': 'message-panel', 'aria-selected': 'false', tabindex: '-1',
  }, t === 'attachments' && m.attachments.length ? `${TAB_LABEL[t]} (${m.attachments.length})` : TAB_LABEL[t]));
  const select = (t: Tab, focus: boolean) => {
    tabs.forEach((b, i) => {
      const on = TABS[i] === t;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
      if (on && focus) b.focus();
    });
    panel.setAttribute('aria-labelledby', `tab-${t}`);
    panel.replaceChildren(panelFor(m, t, () => select(t, false)));
  };
  tabs.forEach((b, i) => {
    b.addEventListener('click', () => {
      select(TABS[i]!, false);
      onTab(TABS[i]!);
    });
    b.addEventListener('keydown', (e) => {
      const moves: Record<string, number> = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 };
      if (!(e.key in moves)) return;
      e.preventDefault();
      const next = TABS[(moves[e.key]! + TABS.length) % TABS.length]!;
      select(next, true);
      onTab(next);
    });
  });
  tablist.append(...tabs);
  select(initial, false);
  return h('article', { class: 'card', 'aria-labelledby': 'message-subject' },
    h('h2', { id: 'message-subject' }, m.subject || '(no subject)'),
    h('dl', { class: 'facts' },
      h('dt', {}, 'From'), h('dd', {}, m.from),
      h('dt', {}, 'To'), h('dd', {}, m.to.join(', ')),
      h('dt', {}, 'Date'), h('dd', {}, formatDate(m.date))),
    trust(m), cue, tablist, panel);
}

export function loadMessage(inbox: string, id: string): Promise<FullMessage> {
  return api<{ data: FullMessage }>('GET', `/v1/inboxes/${enc(inbox)}/messages/${enc(id)}`).then((r) => r.data);
}
