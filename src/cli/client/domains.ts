// `mailcue domains add|list|verify|delete` over /v1/custom-domains (SEED.md): add prints the two
// DNS records to publish; a failed verify names the missing record and shows what is needed.
import type { Command } from 'commander';
import { context, type Ctx } from './context.js';
import type { CustomDomain, DnsRecord } from '../../contract/shapes.js';
import { CliError } from './errors.js';
import { payload, segment, type Json } from './http.js';
import { shortDate } from './output.js';

function printRecords(ctx: Ctx, records: DnsRecord[]): void {
  ctx.out.table(records, [
    { header: 'TYPE', value: (r) => r.type },
    { header: 'HOST', value: (r) => r.hostname },
    { header: 'PRIORITY', value: (r) => r.priority },
    { header: 'VALUE', value: (r) => r.value },
  ]);
}

export function registerDomains(program: Command): void {
  const domains = program.command('domains').description('custom domains: add, verify, list, delete (Growth or Enterprise)');

  domains
    .command('add')
    .description('add a domain and print the two DNS records to publish')
    .argument('<domain>', 'a domain you own, e.g. mail.example.com')
    .action(async (domain: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const res = await ctx.api.call('POST', '/v1/custom-domains', { body: { domain } });
      const d = res.data as CustomDomain & { dns_records?: DnsRecord[] };
      ctx.out.result(d, () => {
        ctx.out.done(String(res.message));
        if (ctx.out.tty) ctx.out.line(`Publish these records at your DNS provider for ${String(d.domain)}:`);
        printRecords(ctx, d.dns_records ?? []);
        if (ctx.out.tty) ctx.out.line(`Then run: mailcue domains verify ${String(d.domain)}`);
      }, () => String(d.domain));
    });

  domains
    .command('list')
    .description('list your domains')
    .action(async (_flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const rows = (await ctx.api.call('GET', '/v1/custom-domains')).data as CustomDomain[];
      ctx.out.result(rows, () => ctx.out.table(rows, [
        { header: 'DOMAIN', value: (d) => d.domain },
        { header: 'VERIFIED', value: (d) => d.verified },
        { header: 'MX', value: (d) => d.mx_record },
        { header: 'TXT', value: (d) => d.txt_record },
        { header: 'ADDED', value: (d) => shortDate(d.added_at) },
      ], 'no custom domains yet: mailcue domains add DOMAIN'), () => rows.map((d) => String(d.domain)));
    });

  domains
    .command('verify')
    .description('look up the DNS records now; names what is missing')
    .argument('<domain>', 'domain added with mailcue domains add')
    .action(async (domain: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      let res: Json;
      try {
        res = await ctx.api.call('POST', `/v1/custom-domains/${segment(domain)}/verify`);
      } catch (err) {
        // The message names the missing record; the records still needed follow it on stderr.
        if (err instanceof CliError && err.code === 'verification_failed') {
          const needed = (err.body.dns_records_needed ?? []) as DnsRecord[];
          throw err.withDetails(['records needed:', ...needed.map((r) => `  ${String(r.type).padEnd(3)}  ${String(r.hostname)}  ${r.priority ? `${String(r.priority)}  ` : ''}${String(r.value)}`)]);
        }
        throw err;
      }
      ctx.out.result(res.data, () => ctx.out.done(String(res.message)), () => domain);
    });

  domains
    .command('delete')
    .description('delete a domain; its inboxes are removed too')
    .argument('<domain>', 'domain name')
    .action(async (domain: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const res = await ctx.api.call('DELETE', `/v1/custom-domains/${segment(domain)}`);
      const removed = (res.inboxes_removed ?? []) as string[];
      ctx.out.result(payload(res), () => {
        ctx.out.done(String(res.message));
        if (removed.length > 0) ctx.out.note(`inboxes removed: ${removed.join(', ')}`);
      }, () => removed);
    });
}
