// Custom domains: add, the two DNS records with copy buttons, verify (naming the missing record),
// delete after a confirmation that lists the inboxes going with the domain.
import { api, ApiError, enc, errorText } from './api.js';
import { announce, clearError, confirmDialog, copyButton, formatDate, h, Latest, showError } from './dom.js';
import type { CustomDomain as Domain } from '../../../contract/shapes.js';

export class DomainsView {
  readonly root = h('section', { class: 'card', 'aria-labelledby': 'domains-title' });
  private message: HTMLElement = h('p', { id: 'domain-error', class: 'error', role: 'alert' });
  private readonly loads = new Latest();
  /**
   * The last verify outcome per domain. A live update re-renders the cards while a verify is in
   * flight; its answer then goes to the card on the page, not the one it was clicked in.
   */
  private readonly statusOf = new Map<string, string>();

  async show(): Promise<void> {
    const form = h('form', { class: 'row', id: 'domain-form' },
      h('div', { class: 'grow' }, h('label', { for: 'domain-name' }, 'Domain'), h('input', { id: 'domain-name', placeholder: 'mail.example.com', required: true, autocomplete: 'off' })),
      h('button', { type: 'submit', class: 'primary' }, 'Add domain'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.add((form.querySelector('input') as HTMLInputElement).value.trim());
    });
    const list = h('div', { id: 'domain-list', class: 'stack' });
    this.root.replaceChildren(h('h1', { id: 'domains-title' }, 'Custom domains'),
      h('p', { class: 'muted' }, 'Receive mail at addresses under your own domain: publish the two records at the domain (host @), then verify.'),
      form, this.message, list);
    await this.load(list);
  }

  async refresh(): Promise<void> {
    const list = this.root.querySelector<HTMLElement>('#domain-list');
    if (list) await this.load(list);
  }

  private async load(list: HTMLElement): Promise<void> {
    const newest = this.loads.begin();
    try {
      const { data } = await api<{ data: Domain[] }>('GET', '/v1/custom-domains');
      if (!newest()) return;
      list.replaceChildren(...(data.length ? data.map((d) => this.card(d)) : [h('p', { class: 'muted' }, 'No custom domains yet.')]));
    } catch (err) {
      this.message.textContent = errorText(err);
      list.replaceChildren();
    }
  }

  private card(d: Domain): HTMLElement {
    const status = h('p', { class: 'error', 'aria-live': 'polite' }, this.statusOf.get(d.domain) ?? '');
    return h('article', { class: 'card', 'data-domain': d.domain, 'aria-label': d.domain },
      h('div', { class: 'row' }, h('h2', { class: 'grow addr' }, d.domain),
        h('span', { class: d.verified ? 'ok' : 'muted' }, d.verified ? 'Verified' : 'Not verified')),
      h('dl', { class: 'records' },
        h('dt', {}, 'MX record (host @, priority 10)'), h('dd', {}, h('code', {}, d.mx_record), copyButton(d.mx_record, `Copy MX record of ${d.domain}`)),
        h('dt', {}, 'TXT record (host @)'), h('dd', {}, h('code', {}, d.txt_record), copyButton(d.txt_record, `Copy TXT record of ${d.domain}`))),
      h('p', { class: 'counts' }, `Added ${formatDate(d.added_at)}`),
      h('div', { class: 'row' },
        d.verified ? null : h('button', { type: 'button', onclick: () => void this.verify(d.domain) }, `Verify ${d.domain}`),
        h('button', { type: 'button', class: 'danger', onclick: () => void this.remove(d.domain) }, `Delete domain ${d.domain}`)),
      status);
  }

  private async add(domain: string): Promise<void> {
    clearError();
    this.message.textContent = '';
    try {
      await api('POST', '/v1/custom-domains', { domain });
      announce(`Domain ${domain} added`);
      await this.refresh();
    } catch (err) {
      this.message.textContent = errorText(err);
    }
  }

  private async verify(domain: string): Promise<void> {
    this.setStatus(domain, 'Looking up DNS…');
    try {
      await api('POST', `/v1/custom-domains/${enc(domain)}/verify`);
      this.setStatus(domain, '');
      announce(`Domain ${domain} verified`);
      await this.refresh();
    } catch (err) {
      this.setStatus(domain, err instanceof ApiError && err.body.hint ? `${err.message} ${String(err.body.hint)}` : errorText(err));
    }
  }

  private setStatus(domain: string, text: string): void {
    if (text) this.statusOf.set(domain, text);
    else this.statusOf.delete(domain);
    for (const card of this.root.querySelectorAll<HTMLElement>('#domain-list article[data-domain]')) {
      if (card.dataset.domain === domain) card.querySelector<HTMLElement>(':scope > p.error')!.textContent = text;
    }
  }

  private async remove(domain: string): Promise<void> {
    let going: string[] = [];
    try {
      going = (await api<{ data: { address: string }[] }>('GET', '/v1/inboxes')).data.map((i) => i.address).filter((a) => a.endsWith(`@${domain}`));
    } catch (err) {
      showError(errorText(err));
      return;
    }
    const body = going.length
      ? [h('p', {}, `These ${going.length} inboxes and their mail are deleted with it:`), h('ul', { id: 'inboxes-going' }, ...going.map((a) => h('li', { class: 'addr' }, a)))]
      : [h('p', {}, 'No inbox uses this domain.')];
    if (!(await confirmDialog(`Delete domain ${domain}?`, body, `Delete domain ${domain}`))) return;
    try {
      const res = await api<{ inboxes_removed: string[] }>('DELETE', `/v1/custom-domains/${enc(domain)}`);
      announce(`Domain ${domain} deleted with ${res.inboxes_removed.length} inboxes`);
      await this.refresh();
    } catch (err) {
      showError(errorText(err));
    }
  }
}
