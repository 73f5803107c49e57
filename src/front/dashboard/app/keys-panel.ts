// Scoped keys on the account page (issue 36): create one limited to some inboxes, to reading, or
// both, with an expiry; its secret is shown once; rotate or delete (after a confirmation). Only the
// account's own key manages keys: signed in with a scoped key, the panel says so.
import { api, ApiError, enc, errorText } from './api.js';
import { announce, confirmDialog, copyButton, formatDate, h, Latest } from './dom.js';
import type { ScopedKey } from '../../../contract/shapes.js';

type Key = Omit<ScopedKey, 'key'>;

const EXPIRIES: [string, number | null][] = [['Never', null], ['1 hour', 3600], ['1 day', 86_400], ['30 days', 30 * 86_400]];

function reach(k: Key): string {
  const where = k.inboxes === null ? 'All inboxes' : [...k.inboxes, ...(k.created_inboxes ? ['inboxes it creates'] : [])].join(', ') || 'No inbox';
  return `${where}${k.read_only ? ' · read-only' : ''}`;
}

export class KeysPanel {
  readonly root = h('div', { class: 'card', id: 'keys', 'aria-labelledby': 'keys-title' });
  private readonly message = h('p', { id: 'key-error', class: 'error', role: 'alert' });
  private readonly secret = h('div', { id: 'key-secret' });
  private readonly list = h('div', { id: 'key-list' });
  private readonly loads = new Latest();

  /**
   * Built once: the account page renders again on every live refresh, and a form rebuilt then would
   * eat what the user is typing (the inbox form keeps itself the same way).
   */
  private readonly form = this.makeForm();

  async show(): Promise<void> {
    if (!this.root.firstChild) {
      this.root.replaceChildren(h('h2', { id: 'keys-title' }, 'Scoped keys'),
        h('p', { class: 'muted' }, 'Give an agent or a CI job a key limited to some inboxes, to reading, or both. A key\'s id and secret also sign in a job by OAuth client credentials.'),
        this.form, this.message, this.secret, this.list);
    }
    await this.load();
  }

  private makeForm(): HTMLFormElement {
    const expiry = h('select', { id: 'key-expiry' }, ...EXPIRIES.map(([label, s]) => h('option', { value: s === null ? '' : String(s) }, label)));
    const form = h('form', { id: 'key-form', class: 'stack' },
      h('div', { class: 'row' },
        h('div', { class: 'grow' }, h('label', { for: 'key-name' }, 'Name'), h('input', { id: 'key-name', placeholder: 'CI job', autocomplete: 'off' })),
        h('div', { class: 'grow' }, h('label', { for: 'key-inboxes' }, 'Inboxes (comma-separated; empty: all)'), h('input', { id: 'key-inboxes', autocomplete: 'off' }))),
      h('div', { class: 'row' },
        h('label', {}, h('input', { type: 'checkbox', id: 'key-created' }), ' Inboxes it creates'),
        h('label', {}, h('input', { type: 'checkbox', id: 'key-read-only' }), ' Read-only'),
        h('label', { for: 'key-expiry' }, 'Expires'), expiry,
        h('button', { type: 'submit', class: 'primary' }, 'Create key')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.create(form);
    });
    return form;
  }

  private async load(): Promise<void> {
    const newest = this.loads.begin();
    try {
      const { data } = await api<{ data: Key[] }>('GET', '/v1/keys');
      if (!newest()) return;
      this.list.replaceChildren(data.length ? this.table(data) : h('p', { class: 'muted' }, 'No scoped keys yet.'));
    } catch (err) {
      this.list.replaceChildren();
      this.message.textContent = err instanceof ApiError && err.code === 'scope_denied' ? 'Signed in with a scoped key: keys are managed with the account\'s API key.' : errorText(err);
    }
  }

  private table(keys: Key[]): HTMLElement {
    return h('table', {},
      h('thead', {}, h('tr', {}, ...['Key', 'Name', 'Reaches', 'Expires', 'Created', ''].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...keys.map((k) => h('tr', { 'data-key': k.id },
        h('td', { class: 'mono' }, k.id), h('td', {}, k.name ?? ''), h('td', {}, reach(k)),
        h('td', {}, k.expires_at ? formatDate(k.expires_at) : 'Never'), h('td', {}, formatDate(k.created_at)),
        h('td', {},
          h('button', { type: 'button', class: 'small', onclick: () => void this.rotate(k.id) }, `Rotate ${k.id}`),
          h('button', { type: 'button', class: 'small danger', onclick: () => void this.remove(k.id) }, `Delete ${k.id}`))))));
  }

  private value(id: string): string {
    return (this.root.querySelector(`#${id}`) as HTMLInputElement).value.trim();
  }

  private async create(form: HTMLFormElement): Promise<void> {
    this.message.textContent = '';
    const inboxes = this.value('key-inboxes').split(',').map((s) => s.trim()).filter(Boolean);
    const created = (this.root.querySelector('#key-created') as HTMLInputElement).checked;
    const expiry = this.value('key-expiry');
    try {
      const { data } = await api<{ data: Key & { key: string } }>('POST', '/v1/keys', {
        ...(this.value('key-name') ? { name: this.value('key-name') } : {}),
        ...(inboxes.length ? { inboxes } : {}),
        ...(created ? { created_inboxes: true } : {}),
        read_only: (this.root.querySelector('#key-read-only') as HTMLInputElement).checked,
        ...(expiry ? { expires_in: Number(expiry) } : {}),
      });
      form.reset();
      this.showSecret(data.id, data.key);
      await this.load();
    } catch (err) {
      this.message.textContent = errorText(err);
    }
  }

  private showSecret(id: string, secret: string): void {
    this.secret.replaceChildren(h('p', { class: 'ok' }, `Key ${id} — its secret is shown only now:`),
      h('p', {}, h('code', { id: 'new-key-secret' }, secret), ' ', copyButton(secret, `Copy the secret of ${id}`)));
    announce(`Key ${id} created`);
  }

  private async rotate(id: string): Promise<void> {
    if (!(await confirmDialog(`Rotate ${id}?`, [h('p', {}, 'The old secret, and every token and session it granted, stop working at once.')], 'Rotate'))) return;
    try {
      const { data } = await api<{ data: Key & { key: string } }>('POST', `/v1/keys/${enc(id)}/rotate`);
      this.showSecret(data.id, data.key);
    } catch (err) {
      this.message.textContent = errorText(err);
    }
  }

  private async remove(id: string): Promise<void> {
    if (!(await confirmDialog(`Delete ${id}?`, [h('p', {}, 'Its secret, tokens and sessions stop working at once.')], 'Delete'))) return;
    try {
      await api('DELETE', `/v1/keys/${enc(id)}`);
      this.secret.replaceChildren();
      announce(`Key ${id} deleted`);
      await this.load();
    } catch (err) {
      this.message.textContent = errorText(err);
    }
  }
}
