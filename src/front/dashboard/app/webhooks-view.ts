// Webhooks: add, the delivery log of each (status, latency, error), re-activate a disabled one
// (registering the same inbox and url again re-activates it), delete.
import { api, enc, errorText } from './api.js';
import { announce, confirmDialog, formatDate, h, Latest, showError } from './dom.js';
import type { Webhook, WebhookDelivery as Delivery } from '../../../contract/shapes.js';

export class WebhooksView {
  readonly root = h('section', { class: 'card', 'aria-labelledby': 'webhooks-title' });
  private readonly message = h('p', { id: 'webhook-error', class: 'error', role: 'alert' });
  private readonly loads = new Latest();

  async show(): Promise<void> {
    const form = h('form', { class: 'row', id: 'webhook-form' },
      h('div', { class: 'grow' }, h('label', { for: 'webhook-url' }, 'Receiver URL (https)'), h('input', { id: 'webhook-url', type: 'url', placeholder: 'https://example.com/hooks/mailcue', required: true })),
      h('div', { class: 'grow' }, h('label', { for: 'webhook-inbox' }, 'Inbox'), h('input', { id: 'webhook-inbox', placeholder: 'signup@mailcue.test', required: true, autocomplete: 'off' })),
      h('button', { type: 'submit', class: 'primary' }, 'Add webhook'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const [url, inbox] = [...form.querySelectorAll('input')].map((i) => i.value.trim());
      void this.register(url!, inbox!, 'added');
    });
    this.root.replaceChildren(h('h1', { id: 'webhooks-title' }, 'Webhooks'),
      h('p', { class: 'muted' }, 'Each new message of the inbox is POSTed to the URL, signed with your API key (X-Service-Signature).'),
      form, this.message, h('div', { id: 'webhook-list', class: 'stack' }));
    await this.refresh();
  }

  async refresh(): Promise<void> {
    const list = this.root.querySelector<HTMLElement>('#webhook-list');
    if (!list) return;
    const newest = this.loads.begin();
    try {
      const { data } = await api<{ data: Webhook[] }>('GET', '/v1/webhooks?status=all');
      const cards = await Promise.all(data.map((w) => this.card(w)));
      if (!newest()) return;
      list.replaceChildren(...(cards.length ? cards : [h('p', { class: 'muted' }, 'No webhooks yet.')]));
    } catch (err) {
      this.message.textContent = errorText(err);
      list.replaceChildren();
    }
  }

  private async card(w: Webhook): Promise<HTMLElement> {
    const log = (await api<{ data: Delivery[] }>('GET', `/v1/webhooks/${enc(w._id)}/deliveries`).catch(() => ({ data: [] as Delivery[] }))).data;
    const rows = log.slice(0, 20).map((d) => h('tr', {},
      h('td', {}, formatDate(d.at)), h('td', { class: d.status !== null && d.status < 300 ? 'ok' : 'bad' }, d.status === null ? '—' : String(d.status)),
      h('td', {}, d.latency_ms === null ? '—' : `${d.latency_ms} ms`), h('td', {}, d.error ?? '')));
    return h('article', { class: 'card', 'data-id': w._id, 'aria-label': `Webhook ${w._id}` },
      h('div', { class: 'row' }, h('h2', { class: 'grow addr mono' }, w.url),
        h('span', { class: w.disabled ? 'bad' : 'ok' }, w.disabled ? `Disabled after ${w.failureCount} failures` : 'Active')),
      h('p', { class: 'counts' }, `${w._id} · inbox ${w.inbox} · ${w.failureCount} consecutive failures · added ${formatDate(w.createdAt)}`),
      h('div', { class: 'row' },
        w.disabled ? h('button', { type: 'button', onclick: () => void this.register(w.url, w.inbox, 're-activated') }, `Re-activate webhook ${w._id}`) : null,
        h('button', { type: 'button', class: 'danger', onclick: () => void this.remove(w) }, `Delete webhook ${w._id}`)),
      h('h3', {}, 'Deliveries'),
      rows.length
        ? h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, ...['When', 'Status', 'Latency', 'Error'].map((t) => h('th', { scope: 'col' }, t)))), h('tbody', {}, ...rows)))
        : h('p', { class: 'muted' }, 'No deliveries yet.'));
  }

  private async register(url: string, inbox: string, verb: string): Promise<void> {
    this.message.textContent = '';
    try {
      await api('POST', '/v1/webhooks', { url, inbox });
      announce(`Webhook ${verb}`);
      await this.refresh();
    } catch (err) {
      this.message.textContent = errorText(err);
    }
  }

  private async remove(w: Webhook): Promise<void> {
    if (!(await confirmDialog(`Delete webhook ${w._id}?`, [h('p', { class: 'addr' }, `${w.url} stops receiving mail of ${w.inbox}.`)], `Delete webhook ${w._id}`))) return;
    try {
      await api('DELETE', `/v1/webhooks/${enc(w._id)}`);
      announce('Webhook deleted');
      await this.refresh();
    } catch (err) {
      showError(errorText(err));
    }
  }
}
