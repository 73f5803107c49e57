// `mailcue inbox create|list|delete` over /v1/inboxes; `create --wait-otp` then waits like
// `mailcue wait --otp`, with the new address on stderr at once so the caller can use it.
import type { Command } from 'commander';
import { context, wholeNumber } from './context.js';
import type { Inbox } from '../../contract/shapes.js';
import { payload, segment } from './http.js';
import { shortDate } from './output.js';
import { printWaited, timedOut, waitForMessage, WAIT_DEFAULT_S, type WaitOptions } from './wait.js';

interface CreateFlags {
  domain?: string;
  retention?: number;
  waitOtp?: boolean;
  timeout: number;
}

export function registerInbox(program: Command): void {
  const inbox = program.command('inbox').description('create, list and delete inboxes');

  inbox
    .command('create')
    .description('create an inbox (a random address on the default or --domain domain unless ADDRESS is given)')
    .argument('[address]', 'the full address to create, e.g. signup@mailcue.test')
    .option('-d, --domain <domain>', 'a service domain or a verified custom domain for the random address')
    .option('-r, --retention <seconds>', 'keep messages this many seconds (at most the plan\'s retention)', wholeNumber(1))
    .option('--wait-otp', 'then wait for a message with a code and print only the code (address on stderr)')
    .option('-t, --timeout <seconds>', 'with --wait-otp: give up after this many seconds (exit 124)', wholeNumber(1), WAIT_DEFAULT_S)
    .addHelpText('after', `
Examples:
  INBOX=$(mailcue inbox create)              # the address alone when stdout is not a terminal
  mailcue inbox create qa@example.com
  CODE=$(mailcue inbox create --wait-otp)    # address on stderr, then the code on stdout`)
    .action(async (address: string | undefined, flags: CreateFlags, cmd: Command) => {
      const ctx = context(cmd);
      const res = await ctx.api.call('POST', '/v1/inboxes', { body: { address, domain: flags.domain, retention: flags.retention } });
      const created = res.data as Inbox;
      if (!flags.waitOtp) {
        ctx.out.result(created, () => {
          if (ctx.out.tty) ctx.out.done(`created ${ctx.out.paint('bold', String(created.address))}`);
          else ctx.out.line(String(created.address));
        }, () => String(created.address));
        return;
      }
      // The address is needed before the code exists (to sign up with it): stderr, at once.
      ctx.out.stderr.write(`${String(created.address)}\n`);
      const options: WaitOptions = { timeoutS: flags.timeout, since: 'start', want: 'otp' };
      const message = await waitForMessage(ctx, String(created.address), options);
      if (!message) throw timedOut(String(created.address), options);
      printWaited(ctx, message, 'otp');
    });

  inbox
    .command('list')
    .description('list your inboxes')
    .action(async (_flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const rows = (await ctx.api.call('GET', '/v1/inboxes')).data as Inbox[];
      ctx.out.result(rows, () => ctx.out.table(rows, [
        { header: 'ADDRESS', value: (i) => i.address },
        { header: 'MESSAGES', value: (i) => i.message_count },
        { header: 'UNREAD', value: (i) => i.unread_count },
        { header: 'CREATED', value: (i) => shortDate(i.created_at) },
      ], 'no inboxes yet: mailcue inbox create'), () => rows.map((i) => String(i.address)));
    });

  inbox
    .command('delete')
    .description('delete an inbox and all its messages')
    .argument('<address>', 'inbox address')
    .action(async (address: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const res = await ctx.api.call('DELETE', `/v1/inboxes/${segment(address)}`);
      ctx.out.result(payload(res), () => ctx.out.done(String(res.message)));
    });
}
