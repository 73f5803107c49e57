// `mailcue keys create|list|rotate|delete` over /v1/keys (issue 36): scoped keys for agents and CI
// jobs, limited to some inboxes, to reading, or both, with an optional expiry. The secret is shown
// once; in a pipe `create` and `rotate` print only the secret, so a script can keep it.
import type { Command } from 'commander';
import { context } from './context.js';
import type { ScopedKey } from '../../contract/shapes.js';
import { payload, segment, type Json } from './http.js';
import { shortDate } from './output.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function reach(k: ScopedKey): string {
  const where = k.inboxes === null ? 'all inboxes' : [...k.inboxes, ...(k.created_inboxes ? ['(inboxes it creates)'] : [])].join(', ') || 'no inbox';
  return `${where}${k.read_only ? ', read-only' : ''}`;
}

function shown(ctx: ReturnType<typeof context>, res: ScopedKey, what: string): void {
  ctx.out.result(payload(res), () => {
    if (!ctx.out.tty) return ctx.out.line(String(res.key));
    ctx.out.done(`key ${ctx.out.paint('bold', String(res.id))} ${what}: ${reach(res)}`);
    ctx.out.line(`secret (shown only now): ${String(res.key)}`);
    ctx.out.line(`client_credentials: client_id=${String(res.id)} client_secret=<the secret>`);
  }, () => String(res.key));
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('scoped API keys: limited to some inboxes, read-only, or expiring (needs the account key)');

  keys
    .command('create')
    .description('create a key; its secret is printed once')
    .option('-n, --name <name>', 'a name to recognise it by')
    .option('-i, --inbox <address>', 'limit the key to this inbox (repeat for more)', collect, [] as string[])
    .option('-c, --created-inboxes', 'let the key create inboxes and use the ones it created')
    .option('-r, --read-only', 'the key can read but not change anything')
    .option('--expires-in <seconds>', 'the key stops working after this many seconds')
    .option('--expires-at <time>', 'the key stops working at this ISO 8601 time')
    .action(async (flags: { name?: string; inbox: string[]; createdInboxes?: boolean; readOnly?: boolean; expiresIn?: string; expiresAt?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const body: Json = {
        ...(flags.name ? { name: flags.name } : {}),
        ...(flags.inbox.length > 0 ? { inboxes: flags.inbox } : {}),
        ...(flags.createdInboxes ? { created_inboxes: true } : {}),
        ...(flags.readOnly ? { read_only: true } : {}),
        ...(flags.expiresIn !== undefined ? { expires_in: Number(flags.expiresIn) } : {}),
        ...(flags.expiresAt !== undefined ? { expires_at: flags.expiresAt } : {}),
      };
      shown(ctx, (await ctx.api.call('POST', '/v1/keys', { body })).data as ScopedKey, 'created');
    });

  keys
    .command('list')
    .description('list the account\'s scoped keys (never their secrets)')
    .action(async (_flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const rows = (await ctx.api.call('GET', '/v1/keys')).data as ScopedKey[];
      ctx.out.result(rows, () => ctx.out.table(rows, [
        { header: 'ID', value: (k) => k.id },
        { header: 'NAME', value: (k) => k.name, max: 30 },
        { header: 'REACHES', value: (k) => reach(k), max: 50 },
        { header: 'EXPIRES', value: (k) => (k.expires_at ? shortDate(k.expires_at) : 'never') },
        { header: 'CREATED', value: (k) => shortDate(k.created_at) },
      ], 'no keys yet: mailcue keys create --read-only'), () => rows.map((k) => String(k.id)));
    });

  keys
    .command('rotate')
    .description('give a key a new secret; the old one and everything it granted stop working')
    .argument('<id>', 'key id (key_…)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      shown(ctx, (await ctx.api.call('POST', `/v1/keys/${segment(id)}/rotate`)).data as ScopedKey, 'rotated');
    });

  keys
    .command('delete')
    .description('delete a key; its tokens and sessions stop working')
    .argument('<id>', 'key id (key_…)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const res = await ctx.api.call('DELETE', `/v1/keys/${segment(id)}`);
      ctx.out.result(payload(res), () => ctx.out.done(String(res.message)));
    });
}
