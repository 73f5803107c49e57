// Inboxes: the inbox list, the open inbox's messages (filter, pages of 50) and the open message,
// side by side on wide screens and one at a time on narrow ones. Live changes reload what is shown.
import { api, enc, errorText } from './api.js';
import { announce, attachmentIcon, clearError, confirmDialog, formatDate, formatShort, h, Latest, meta, showError } from './dom.js';
import { loadMessage, renderMessage } from './message-view.js';
import { go, pathOf, type Place } from './router.js';
import type { Inbox, MessageSummary as Summary } from '../../../contract/shapes.js';

/** An inbox's own retention, in seconds (REST `retention`); empty: the plan's. */
const RETENTION_CHOICES: [string, string][] = [['as long as the plan keeps them', ''], ['1 hour', '3600'], ['1 day', '86400'], ['7 days', '604800'], ['30 days', '2592000']];

const PAGE = 50;

function smtpCommand(address: string): string {
  const port = meta('mailcue-smtp-port') || '2525';
  return `swaks --server ${location.hostname}:${port} --to ${address} --from you@example.com \\\n  --header "Subject: Your code" --body "Your verification code is 123456"`;
}

export class InboxesView {
  readonly root = h('div', { class: 'grid' });
  private readonly inboxPane = h('section', { class: 'pane inboxes card', 'aria-labelledby': 'inboxes-title' });
  private readonly messagePane = h('section', { class: 'pane messages card', 'aria-labelledby': 'messages-title' });
  private readonly detailPane = h('section', { class: 'pane detail', 'aria-label': 'Message' });
  private inboxes: Inbox[] | null = null;
  private messages: Summary[] = [];
  /** `before` cursors of the pages above the one shown; empty on the first page. */
  private cursors: string[] = [];
  private query = '';
  private place: Place | null = null;
  private openInbox: string | null = null;
  private openMessage: string | null = null;

  constructor() {
    this.root.append(this.inboxPane, this.messagePane, this.detailPane);
  }

  /** `reload`: coming back from another section, where live changes were not followed. */
  async show(place: Place, reload = false): Promise<void> {
    this.place = place;
    this.root.dataset.depth = place.message ? 'message' : place.inbox ? 'inbox' : 'list';
    const inboxChanged = place.inbox !== this.openInbox;
    if (inboxChanged) {
      this.openInbox = place.inbox;
      this.cursors = [];
      this.query = '';
      this.messages = [];
      this.nextBefore = null;
    }
    await Promise.all([
      this.inboxes === null || inboxChanged || reload ? this.loadInboxes() : Promise.resolve(this.renderInboxes()),
      inboxChanged || reload ? this.loadMessages() : Promise.resolve(this.renderMessages()),
      place.message !== this.openMessage || inboxChanged ? this.loadDetail() : Promise.resolve(),
    ]);
  }

  /** After a live change or a reconnect: reload the lists (and the inbox's messages if it changed). */
  async refresh(inboxes: Set<string> | 'all'): Promise<void> {
    const jobs = [this.loadInboxes()];
    if (this.openInbox && (inboxes === 'all' || inboxes.has(this.openInbox))) jobs.push(this.loadMessages());
    await Promise.all(jobs);
  }

  private readonly inboxesLoad = new Latest();

  private async loadInboxes(): Promise<void> {
    const newest = this.inboxesLoad.begin();
    try {
      const { data } = await api<{ data: Inbox[] }>('GET', '/v1/inboxes');
      if (!newest()) return;
      this.inboxes = data.sort((a, b) => b.created_at.localeCompare(a.created_at));
    } catch (err) {
      if (!newest()) return;
      showError(errorText(err));
    }
    this.renderInboxes();
  }

  /** The form stays across re-renders, so a live refresh never eats what the user is typing. */
  private readonly inboxForm = this.makeInboxForm();
  private readonly inboxList = h('div', {});

  private makeInboxForm(): HTMLFormElement {
    const form = h('form', { class: 'row', id: 'inbox-form' },
      h('div', { class: 'grow' }, h('label', { for: 'inbox-address' }, 'New inbox address (optional)'),
        h('input', { id: 'inbox-address', placeholder: `signup@${meta('mailcue-domains').split(',')[0] || 'mailcue.test'}`, autocomplete: 'off' })),
      h('div', {}, h('label', { for: 'inbox-retention' }, 'Keep messages'),
        h('select', { id: 'inbox-retention' }, ...RETENTION_CHOICES.map(([label, seconds]) => h('option', { value: seconds }, label)))),
      h('button', { type: 'submit', class: 'primary' }, 'Create inbox'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const input = form.querySelector('input') as HTMLInputElement;
      const retention = (form.querySelector('select') as HTMLSelectElement).value;
      void this.create(input.value.trim(), retention ? Number(retention) : null).then((ok) => ok && (input.value = ''));
    });
    return form;
  }

  private renderInboxes(): void {
    const list = this.inboxes ?? [];
    if (!this.inboxPane.firstChild) this.inboxPane.append(h('h2', { id: 'inboxes-title' }, 'Inboxes'), this.inboxForm, this.inboxList);
    const items = list.map((i) => h('li', { class: 'inbox-row' }, h('a', {
      class: 'grow', href: pathOf({ section: 'inboxes', inbox: i.address }), 'data-inbox': i.address, 'aria-current': i.address === this.openInbox ? 'true' : false,
    }, h('div', { class: 'addr' }, i.unread_count ? h('strong', {}, i.address) : i.address),
    h('div', { class: 'counts' }, `${i.message_count} messages · ${i.unread_count} unread${i.retention ? ` · kept ${retentionText(i.retention)}` : ''}`)),
    // Deleting from the list asks first, as deleting the open inbox does.
    h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete inbox ${i.address}`, onclick: () => void this.deleteInbox(i.address) }, 'Delete')));
    this.inboxList.replaceChildren(list.length ? h('ul', { class: 'list', id: 'inbox-list' }, ...items)
      : h('div', { class: 'empty' }, h('p', {}, 'No inboxes yet. Create one above: leave the address empty for a random one.')));
  }

  private async create(address: string, retention: number | null): Promise<boolean> {
    clearError();
    try {
      const { data } = await api<{ data: Inbox }>('POST', '/v1/inboxes', { ...(address ? { address } : {}), ...(retention ? { retention } : {}) });
      announce(`Inbox ${data.address} created`);
      this.inboxes = null;
      go(pathOf({ section: 'inboxes', inbox: data.address }));
      return true;
    } catch (err) {
      showError(errorText(err));
      return false;
    }
  }

  private readonly messagesLoad = new Latest();
  /** Where the next older page starts (the list's `next_before`); null at the end of the inbox. */
  private nextBefore: string | null = null;

  private async loadMessages(): Promise<void> {
    const inbox = this.openInbox;
    if (!inbox) return this.renderMessages();
    const newest = this.messagesLoad.begin();
    const params = new URLSearchParams({ limit: String(PAGE) });
    const before = this.cursors.at(-1);
    if (before) params.set('before', before);
    if (this.query) params.set('q', this.query);
    try {
      const { data, next_before } = await api<{ data: Summary[]; next_before?: string }>('GET', `/v1/inboxes/${enc(inbox)}/messages?${params}`);
      if (!newest()) return;
      this.messages = data;
      // A search reads a bounded part of the inbox per request: it may end a page early and say where to go on.
      this.nextBefore = next_before ?? null;
    } catch (err) {
      if (!newest()) return;
      showError(errorText(err));
    }
    this.renderMessages();
  }

  /** The open inbox's heading, filter and delete button: made when the inbox opens, kept across refreshes. */
  private messageHead: { inbox: string; node: HTMLElement } | null = null;
  private readonly messageBody = h('div', {});

  private makeMessageHead(inbox: string): HTMLElement {
    const search = h('form', { class: 'grow', role: 'search' },
      h('label', { for: 'message-filter' }, 'Filter by sender, subject or code'),
      h('input', { id: 'message-filter', type: 'search', value: this.query, autocomplete: 'off' }));
    search.addEventListener('submit', (e) => e.preventDefault());
    let timer = 0;
    search.querySelector('input')!.addEventListener('input', (e) => {
      clearTimeout(timer);
      timer = window.setTimeout(() => {
        this.query = (e.target as HTMLInputElement).value.trim();
        this.cursors = [];
        void this.loadMessages();
      }, 250);
    });
    return h('div', {},
      h('a', { class: 'back', href: '/dashboard/inboxes' }, '← All inboxes'),
      h('h2', { id: 'messages-title', class: 'addr' }, inbox),
      h('div', { class: 'toolbar' }, search,
        h('button', { type: 'button', class: 'danger', onclick: () => void this.deleteInbox(inbox) }, `Delete inbox ${inbox}`)));
  }

  private renderMessages(): void {
    const inbox = this.openInbox;
    if (!inbox) {
      this.messageHead = null;
      this.messagePane.replaceChildren(h('h2', { id: 'messages-title' }, 'Messages'), h('p', { class: 'muted' }, 'Choose an inbox to see its mail.'));
      return;
    }
    if (this.messageHead?.inbox !== inbox) {
      this.messageHead = { inbox, node: this.makeMessageHead(inbox) };
      this.messagePane.replaceChildren(this.messageHead.node, this.messageBody);
    }
    const rows = this.messages.map((m) => h('li', {}, h('a', {
      href: pathOf({ section: 'inboxes', inbox, message: m.id }), class: `msg${m.read ? '' : ' unread'}`, 'data-id': m.id,
      'aria-current': m.id === this.openMessage ? 'true' : false,
    },
    h('div', { class: 'line1' }, h('span', { class: 'from' }, m.from), h('time', { class: 'counts', datetime: m.date, title: formatDate(m.date) }, formatShort(m.date))),
    h('div', { class: 'subject' }, m.read ? '' : h('span', { class: 'visually-hidden' }, 'Unread: '), m.subject || '(no subject)'),
    h('div', { class: 'meta' }, m.otp ? h('span', { class: 'otp badge' }, m.otp) : null,
      m.has_attachment ? attachmentIcon() : null))));
    const page = this.cursors.length;
    const pager = h('div', { class: 'pager' },
      page > 0 ? h('button', { type: 'button', id: 'newer', onclick: () => { this.cursors.pop(); void this.loadMessages(); } }, 'Newer') : null,
      this.nextBefore ? h('button', { type: 'button', id: 'older', onclick: () => { this.cursors.push(this.nextBefore!); void this.loadMessages(); } }, 'Older') : null);
    const empty = this.query
      ? h('p', { class: 'empty muted' }, `No message matches “${this.query}”.`)
      : h('div', { class: 'empty' }, h('p', {}, 'No messages yet. New mail shows here as it arrives. Send one over SMTP:'), h('pre', { id: 'smtp-command' }, smtpCommand(inbox)));
    this.messageBody.replaceChildren(
      page > 0 ? h('p', { class: 'counts', id: 'page-range' }, `Messages ${page * PAGE + 1}–${page * PAGE + this.messages.length}`) : '',
      this.messages.length ? h('ul', { class: 'list', id: 'message-list', 'aria-label': `Messages of ${inbox}` }, ...rows) : empty,
      pager);
  }

  private async loadDetail(): Promise<void> {
    const place = this.place!;
    this.openMessage = place.message;
    if (!place.inbox || !place.message) {
      this.detailPane.replaceChildren(h('div', { class: 'card placeholder' }, place.inbox ? 'Choose a message to read it here.' : 'Choose an inbox, then a message.'));
      return;
    }
    try {
      const m = await loadMessage(place.inbox, place.message);
      if (this.openMessage !== m.id) return;
      const back = h('a', { class: 'back', href: pathOf({ section: 'inboxes', inbox: m.inbox }) }, `← ${m.inbox}`);
      const del = h('button', { type: 'button', class: 'danger', onclick: () => void this.deleteMessage(m.inbox, m.id, m.subject) }, `Delete message “${m.subject || m.id}”`);
      this.detailPane.replaceChildren(back, renderMessage(m, place.tab, (tab) => history.replaceState(null, '', pathOf({ ...place, tab }))), h('p', {}, del));
      this.renderMessages();
    } catch (err) {
      this.detailPane.replaceChildren(h('p', { class: 'card error' }, errorText(err)));
    }
  }

  private async deleteInbox(address: string): Promise<void> {
    const ok = await confirmDialog(`Delete inbox ${address}?`, [h('p', {}, 'Its messages are deleted with it. This cannot be undone.')], `Delete inbox ${address}`);
    if (!ok) return;
    try {
      await api('DELETE', `/v1/inboxes/${enc(address)}`);
      announce(`Inbox ${address} deleted`);
      if (address === this.openInbox) {
        this.inboxes = null;
        go('/dashboard/inboxes');
      } else {
        await this.loadInboxes();
      }
    } catch (err) {
      showError(errorText(err));
    }
  }

  private async deleteMessage(inbox: string, id: string, subject: string): Promise<void> {
    const ok = await confirmDialog('Delete this message?', [h('p', {}, subject || id)], 'Delete message');
    if (!ok) return;
    try {
      await api('DELETE', `/v1/inboxes/${enc(inbox)}/messages/${enc(id)}`);
      announce('Message deleted');
      go(pathOf({ section: 'inboxes', inbox }));
      await this.loadMessages();
    } catch (err) {
      showError(errorText(err));
    }
  }
}

function retentionText(seconds: number): string {
  return seconds % 86_400 === 0 ? `${seconds / 86_400} d` : seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds} s`;
}
