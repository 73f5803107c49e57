// `mailcue account` (GET /v1/account), `mailcue login` and `mailcue logout` (the saved profile).
import type { Command } from 'commander';
import { context, type Ctx } from './context.js';
import { configPath, readProfile, resolveConnection, writeProfile } from './connection.js';
import { CliError } from './errors.js';
import type { Account, PlanLimits, StorageUsage } from '../../contract/shapes.js';
import { Api } from './http.js';
import { Output } from './output.js';

function printAccount(ctx: Ctx, a: Account): void {
  // An older server may leave out what this one sends: '-' then.
  const limits: Partial<PlanLimits> = a.limits ?? {};
  ctx.out.record([
    ['Account', a.id],
    ['Plan', a.plan],
    ['Credits', `${String(a.credits_used)} used, ${String(a.credits_left)} left of ${String(limits.monthly_credits)} this month`],
    ['Requests', `${String(a.requests_this_minute ?? '-')} this minute of ${String(limits.requests_per_minute)}`],
    ['Agent tools', limits.tool_execution ? `${String(a.ops_this_minute)} ops this minute of ${String(limits.ops_per_minute)}; ${String(a.sessions_open)} of ${String(limits.concurrent_sessions)} sessions` : 'not on this plan'],
    ['Custom domains', limits.custom_domains],
    ['Webhooks', limits.webhooks],
    ...storageRows(a.usage ?? {}, limits),
  ]);
}

/** Usage beside each storage limit of the plan (DESIGN §7). */
function storageRows(usage: Partial<StorageUsage>, limits: Partial<PlanLimits>): [string, unknown][] {
  return [
    ['Inboxes', `${String(usage.inboxes ?? '-')} of ${String(limits.inboxes ?? '-')}`],
    ['Messages', `${String(usage.messages ?? '-')} stored, at most ${String(limits.messages_per_inbox ?? '-')} per inbox`],
    ['Storage', `${formatBytes(Number(usage.bytes))} of ${formatBytes(Number(limits.stored_bytes))}`],
    ['Retention', formatSeconds(Number(limits.retention))],
  ];
}

export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return '-';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '-';
  if (s % 86_400 === 0) return `${s / 86_400} day${s === 86_400 ? '' : 's'}`;
  if (s % 3600 === 0) return `${s / 3600} h`;
  return `${s} s`;
}

/** The key from --api-key or MAILCUE_API_KEY, else typed (hidden) on a terminal, else read from stdin. */
async function readKey(given: string | undefined): Promise<string> {
  if (given) return given;
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += chunk;
    return text.trim();
  }
  process.stderr.write('API key: ');
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  let key = '';
  try {
    for await (const chunk of stdin) {
      for (const ch of chunk as string) {
        if (ch === '\r' || ch === '\n') return key.trim();
        if (ch === '\u0003') throw new CliError('usage', 'cancelled');
        if (ch === '\u007f') key = key.slice(0, -1);
        else key += ch;
      }
    }
    return key.trim();
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write('\n');
  }
}

export function registerAccount(program: Command): void {
  program
    .command('account')
    .description('your plan, credits, limits and storage usage')
    .action(async (_flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const a = (await ctx.api.call('GET', '/v1/account')).data as Account;
      ctx.out.result(a, () => printAccount(ctx, a), () => String(a.plan));
    });

  program
    .command('login')
    .description(`check an API key and save it for this URL in ${'$XDG_CONFIG_HOME'}/mailcue/config.json (mode 0600)`)
    .addHelpText('after', `
The key comes from --api-key or MAILCUE_API_KEY, or is typed (hidden) on a terminal, or is read
from stdin:  echo "$KEY" | mailcue login --url https://mail.example.com`)
    .action(async (_flags: unknown, cmd: Command) => {
      const opts = cmd.optsWithGlobals<{ url?: string; apiKey?: string; json?: boolean; quiet?: boolean }>();
      const out = new Output({ json: opts.json === true, quiet: opts.quiet === true });
      const profile = readProfile();
      const { url } = resolveConnection({ url: opts.url }, profile);
      const key = await readKey(opts.apiKey || process.env.MAILCUE_API_KEY);
      if (!key) throw new CliError('usage', 'no API key given');
      const account = (await new Api(url, key).call('GET', '/v1/account')).data as Account;
      profile.hosts[url] = { api_key: key, account: String(account.id) };
      profile.current = url;
      const file = writeProfile(profile);
      out.result({ url, account: account.id, plan: account.plan, config: file },
        () => out.done(`logged in to ${url} as ${String(account.id)} (${String(account.plan)} plan); saved to ${file}`), () => file);
    });

  program
    .command('logout')
    .description('forget the saved key for the current URL')
    .action(async (_flags: unknown, cmd: Command) => {
      const opts = cmd.optsWithGlobals<{ url?: string; json?: boolean; quiet?: boolean }>();
      const out = new Output({ json: opts.json === true, quiet: opts.quiet === true });
      const profile = readProfile();
      const { url } = resolveConnection({ url: opts.url }, profile);
      const had = url in profile.hosts;
      delete profile.hosts[url];
      if (profile.current === url) profile.current = Object.keys(profile.hosts)[0] ?? null;
      if (had) writeProfile(profile);
      out.result({ url, logged_out: had }, () => out.done(had ? `logged out of ${url}` : `not logged in to ${url} (${configPath()})`));
    });
}
