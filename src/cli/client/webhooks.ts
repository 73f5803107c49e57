// `mailcue webhooks add|list|delete|deliveries` over /v1/webhooks (SEED.md, DESIGN §3).
import type { Command } from 'commander';
import { context } from './context.js';
import type { Webhook, WebhookDelivery } from '../../contract/shapes.js';
import { payload, segment } from './http.js';
import { shortDate } from './output.js';

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description('webhooks: POST new_message to your HTTPS URL (Growth or Enterprise)');

  webhooks
    .command('add')
    .description('register a webhook for an inbox (the same inbox and URL again re-activates it)')
    .argument('<inbox>', 'inbox address to watch')
    .argument('<url>', 'HTTPS receiver URL')
    .action(async (inbox: string, url: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const res = await ctx.api.call('POST', '/v1/webhooks', { body: { inbox, url } });
      ctx.out.result(payload(res), () => {
        if (ctx.out.tty) ctx.out.done(`webhook ${ctx.out.paint('bold', String(res.id))} posts mail of ${String(res.inbox)} to ${String(res.url)}`);
        else ctx.out.line(String(res.id));
      }, () => String(res.id));
    });

  webhooks
    .command('list')
    .description('list active webhooks')
    .option('-a, --all', 'include disabled webhooks')
    .action(async (flags: { all?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const rows = (await ctx.api.call('GET', '/v1/webhooks', { query: { status: flags.all ? 'all' : undefined } })).data as Webhook[];
      ctx.out.result(rows, () => ctx.out.table(rows, [
        { header: 'ID', value: (w) => w._id },
        { header: 'INBOX', value: (w) => w.inbox },
        { header: 'URL', value: (w) => w.url, max: 50 },
        { header: 'FAILURES', value: (w) => w.failureCount },
        { header: 'DISABLED', value: (w) => w.disabled === true },
        { header: 'CREATED', value: (w) => shortDate(w.createdAt) },
      ], 'no webhooks yet: mailcue webhooks add INBOX URL'), () => rows.map((w) => String(w._id)));
    });

  webhooks
    .command('delete')
    .description('delete a webhook')
    .argument('<id>', 'webhook id (wh_…)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const res = await ctx.api.call('DELETE', `/v1/webhooks/${segment(id)}`);
      ctx.out.result(payload(res), () => ctx.out.done(String(res.message)));
    });

  webhooks
    .command('deliveries')
    .description('the last 100 delivery attempts of a webhook, newest first')
    .argument('<id>', 'webhook id (wh_…)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const rows = (await ctx.api.call('GET', `/v1/webhooks/${segment(id)}/deliveries`)).data as WebhookDelivery[];
      ctx.out.result(rows, () => ctx.out.table(rows, [
        { header: 'AT', value: (d) => shortDate(d.at) },
        { header: 'STATUS', value: (d) => d.status },
        { header: 'LATENCY', value: (d) => (typeof d.latency_ms === 'number' ? `${d.latency_ms} ms` : null) },
        { header: 'ERROR', value: (d) => d.error, max: 60 },
      ], `no deliveries yet for ${id}`), () => rows.map((d) => String(d.at)));
    });
}
