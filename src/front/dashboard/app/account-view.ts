// Account: plan, credits used and left as a bar, ops and requests this minute, open agent-tool
// sessions, and how to connect an MCP client (URL and a copy-paste config).
import { api, errorText, session } from './api.js';
import { copyButton, h, Latest, meta } from './dom.js';
import { KeysPanel } from './keys-panel.js';
import type { Account as Usage } from '../../../contract/shapes.js';

const fmt = (n: number) => n.toLocaleString('en-US');

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

function days(seconds: number): string {
  return seconds % 86_400 === 0 ? `${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}` : `${fmt(seconds)} seconds`;
}

function mcpConfig(url: string, key: string): string {
  return JSON.stringify({ mcpServers: { mailcue: { type: 'http', url: `${url}/mcp`, headers: { Authorization: `Bearer ${key}` } } } }, null, 2);
}

/** The key as shown on screen: enough to recognise it, not enough to use it. */
function masked(key: string): string {
  return key.length > 16 ? `${key.slice(0, 10)}…${key.slice(-4)}` : key;
}

export class AccountView {
  readonly root = h('section', { class: 'stack', 'aria-labelledby': 'account-title' });
  private readonly loads = new Latest();
  private readonly keys = new KeysPanel();

  async show(): Promise<void> {
    await this.refresh();
  }

  async refresh(): Promise<void> {
    let u: Usage;
    const newest = this.loads.begin();
    try {
      u = (await api<{ data: Usage }>('GET', '/v1/account')).data;
      if (!newest()) return;
    } catch (err) {
      this.root.replaceChildren(h('h1', { id: 'account-title' }, 'Account'), h('p', { class: 'error' }, errorText(err)));
      return;
    }
    const total = u.limits.monthly_credits;
    const pct = total > 0 ? Math.min(100, Math.round((u.credits_used / total) * 100)) : 0;
    const url = meta('mailcue-mcp-url') || location.origin;
    const key = session.key ?? '<API_KEY>';
    const plan = u.plan[0]!.toUpperCase() + u.plan.slice(1);
    this.root.replaceChildren(
      h('div', { class: 'card' },
        h('h1', { id: 'account-title' }, 'Account'),
        h('dl', { class: 'facts' },
          h('dt', {}, 'Account'), h('dd', { class: 'mono' }, u.id),
          h('dt', {}, 'Plan'), h('dd', { id: 'account-plan' }, `${plan}${u.limits.price_usd_per_month ? ` ($${u.limits.price_usd_per_month}/month)` : ''}`),
          h('dt', {}, 'Agent tools'), h('dd', {}, u.limits.tool_execution ? 'included' : 'not on this plan (Growth or Enterprise)'),
          h('dt', {}, 'Tool ops this minute'), h('dd', { id: 'ops-minute' }, `${fmt(u.ops_this_minute)} of ${fmt(u.limits.ops_per_minute)}`),
          h('dt', {}, 'API requests this minute'), h('dd', { id: 'requests-minute' }, `${fmt(u.requests_this_minute)} of ${fmt(u.limits.requests_per_minute)}`),
          h('dt', {}, 'Open agent sessions'), h('dd', { id: 'sessions-open' }, `${fmt(u.sessions_open)} of ${fmt(u.limits.concurrent_sessions)}`)),
        h('h2', { style: 'margin-top:14px' }, 'Credits this month'),
        h('div', {
          class: 'bar', role: 'progressbar', 'aria-label': 'Credits used', 'aria-valuemin': '0', 'aria-valuemax': String(total), 'aria-valuenow': String(Math.min(u.credits_used, total)),
        }, h('span', { style: `width:${pct}%` })),
        h('p', { id: 'credits' }, `${fmt(u.credits_used)} used · ${fmt(u.credits_left)} left of ${fmt(total)}`)),
      h('div', { class: 'card' },
        h('h2', {}, 'Storage'),
        h('dl', { class: 'facts', id: 'storage' },
          h('dt', {}, 'Inboxes'), h('dd', { id: 'usage-inboxes' }, `${fmt(u.usage.inboxes)} of ${fmt(u.limits.inboxes)}`),
          h('dt', {}, 'Messages'), h('dd', { id: 'usage-messages' }, `${fmt(u.usage.messages)} (at most ${fmt(u.limits.messages_per_inbox)} per inbox)`),
          h('dt', {}, 'Stored'), h('dd', { id: 'usage-bytes' }, `${bytes(u.usage.bytes)} of ${bytes(u.limits.stored_bytes)}`),
          h('dt', {}, 'Messages kept'), h('dd', { id: 'retention' }, days(u.limits.retention)))),
      h('div', { class: 'card' },
        h('h2', {}, 'Connect an MCP client'),
        h('p', {}, 'Streamable HTTP: ', h('code', { id: 'mcp-url' }, `${url}/mcp`), ' ', copyButton(`${url}/mcp`, 'Copy MCP URL'),
          ' · legacy SSE: ', h('code', {}, `${url}/sse`)),
        h('p', { class: 'muted' }, 'Config for clients that read an mcpServers file (Claude Code, Cursor, …). The copy holds your whole key: keep it private.'),
        h('pre', { id: 'mcp-config' }, mcpConfig(url, masked(key))),
        h('p', {}, copyButton(mcpConfig(url, key), 'Copy MCP client config')),
        h('p', { class: 'muted' }, 'Connectors that ask for OAuth: give them ', h('code', {}, `${url}/sse`), ' and your API key as the client id.')),
      this.keys.root,
    );
    await this.keys.show();
  }
}
