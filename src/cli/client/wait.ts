// `mailcue wait`: long-polls GET /v1/inboxes/{address}/messages/wait, again and again past the
// server's 60 s cap, until a matching message arrives or --timeout passes (exit 124, like
// timeout(1)). Each poll starts after the last message seen, so nothing arriving between two
// polls is missed.
import type { Command } from 'commander';
import { context, wholeNumber, type Ctx } from './context.js';
import { CliError } from './errors.js';
import type { MessageSummary } from '../../contract/shapes.js';
import { segment, type Json } from './http.js';
import { printSummary } from './messages.js';

/** Sorts before every message id (`msg_` + 13 base-36 + 6 hex): "from the inbox's first message". */
const FIRST_ID = 'msg_0000000000000000000';
const POLL_MIN_S = 10;
const POLL_MAX_S = 60;
export const WAIT_DEFAULT_S = 120;
const RETRY_MAX_S = 4;

export type Want = 'any' | 'otp' | 'link';

export interface WaitOptions {
  timeoutS: number;
  /** A message id, `start` (messages already in the inbox count), or null (only mail to come). */
  since: string | null;
  want: Want;
}

function matches(message: MessageSummary, want: Want): boolean {
  if (want === 'otp') return typeof message.otp === 'string' && message.otp !== '';
  if (want === 'link') return typeof message.verification_link === 'string' && message.verification_link !== '';
  return true;
}

async function newestId(ctx: Ctx, inbox: string): Promise<string> {
  const list = await ctx.api.call('GET', `/v1/inboxes/${segment(inbox)}/messages`, { query: { limit: 1 } });
  const newest = (list.data as MessageSummary[])[0];
  return typeof newest?.id === 'string' ? newest.id : FIRST_ID;
}

/** The first message after the starting point that has what is wanted, or null at the deadline. */
export async function waitForMessage(ctx: Ctx, inbox: string, options: WaitOptions): Promise<MessageSummary | null> {
  const deadline = Date.now() + options.timeoutS * 1000;
  const what = options.want === 'otp' ? 'a code' : options.want === 'link' ? 'a link' : 'a message';
  const spinner = ctx.out.spinner(`waiting for ${what} at ${inbox}`);
  // Ctrl-C: clear the spinner line; closing the socket frees the server's parked waiter.
  const onSigint = () => {
    spinner.stop();
    process.exit(130);
  };
  process.once('SIGINT', onSigint);
  try {
    let cursor = options.since === 'start' ? FIRST_ID : options.since ?? (await newestId(ctx, inbox));
    let failures = 0;
    for (;;) {
      const leftMs = deadline - Date.now();
      if (leftMs <= 0) return null;
      const pollS = Math.min(POLL_MAX_S, Math.max(POLL_MIN_S, Math.ceil(leftMs / 1000)));
      let answer: Json;
      try {
        // The server waits at least 10 s; a shorter remainder is cut here, at the deadline.
        answer = await ctx.api.call('GET', `/v1/inboxes/${segment(inbox)}/messages/wait`, {
          query: { timeout: pollS, since: cursor },
          signal: AbortSignal.timeout(leftMs),
        });
        failures = 0;
      } catch (err) {
        if (!(err instanceof CliError)) {
          if (Date.now() >= deadline) return null;
          throw err;
        }
        // A restart, a deploy or a rate limit during a long wait is ridden out until --timeout:
        // the cursor is kept, so mail that arrived meanwhile is still found.
        if (!err.transient) throw err;
        const backoffMs = (err.retryAfterS ?? Math.min(RETRY_MAX_S, 2 ** failures++ * 0.25)) * 1000;
        if (Date.now() + backoffMs >= deadline) throw err;
        await new Promise((r) => setTimeout(r, backoffMs));
        continue;
      }
      if (answer.timed_out === true || !answer.data) continue;
      const message = answer.data as MessageSummary;
      if (matches(message, options.want)) return message;
      cursor = String(message.id);
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
    spinner.stop();
  }
}

export function timedOut(inbox: string, options: WaitOptions): CliError {
  const what = options.want === 'otp' ? 'message with a code' : options.want === 'link' ? 'message with a link' : 'message';
  return new CliError('timeout', `no ${what} at ${inbox} within ${options.timeoutS} s`);
}

/** Prints what `wait` found: only the code or link with --otp/--link, so `CODE=$(…)` works. */
export function printWaited(ctx: Ctx, message: MessageSummary, want: Want): void {
  if (want !== 'any' && !ctx.out.json) {
    ctx.out.text(String(want === 'otp' ? message.otp : message.verification_link));
    return;
  }
  ctx.out.result(message, () => printSummary(ctx, message), () => String(message.id));
}

export function wantOf(flags: { otp?: boolean; link?: boolean }): Want {
  if (flags.otp && flags.link) throw new CliError('usage', '--otp and --link exclude each other');
  return flags.otp ? 'otp' : flags.link ? 'link' : 'any';
}

export function registerWait(program: Command): void {
  program
    .command('wait')
    .description('wait for the next message at an inbox (long-poll, repeated up to --timeout)')
    .argument('<inbox>', 'inbox address')
    .option('-t, --timeout <seconds>', 'give up after this many seconds (exit 124)', wholeNumber(1), WAIT_DEFAULT_S)
    .option('--since <id>', 'a message id: wait for a newer one; "start": messages already in the inbox count too')
    .option('--otp', 'wait for a message with a one-time code and print only the code')
    .option('--link', 'wait for a message with a verification link and print only the link')
    .addHelpText('after', `
Without --since, only mail that arrives after the command starts counts. In CI, where the mail
may arrive before the command runs, use a fresh inbox and --since start:
  CODE=$(mailcue wait "$INBOX" --since start --otp --timeout 120)`)
    .action(async (inbox: string, flags: { timeout: number; since?: string; otp?: boolean; link?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const options: WaitOptions = { timeoutS: flags.timeout, since: flags.since ?? null, want: wantOf(flags) };
      const message = await waitForMessage(ctx, inbox, options);
      if (!message) throw timedOut(inbox, options);
      printWaited(ctx, message, options.want);
    });
}
