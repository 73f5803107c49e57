// `mailcue messages list|show|raw|attachment|delete` over /v1/inboxes/{address}/messages.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { context, wholeNumber, type Ctx } from './context.js';
import { CliError } from './errors.js';
import type { FullMessage, MessageSummary } from '../../contract/shapes.js';
import { payload, segment } from './http.js';
import { shortDate, inert } from './output.js';

function messagePath(inbox: string, id: string): string {
  return `/v1/inboxes/${segment(inbox)}/messages/${segment(id)}`;
}

/** A summary (list row, `wait` result) as label/value lines. */
export function printSummary(ctx: Ctx, m: MessageSummary | FullMessage, more: ReadonlyArray<readonly [string, unknown]> = []): void {
  ctx.out.record([
    ['ID', m.id],
    ['From', m.from],
    ['To', m.to],
    ['Subject', m.subject],
    ['Date', shortDate(m.date)],
    ['OTP', m.otp],
    ['Link', m.verification_link],
    ...more,
  ]);
}

function printMessage(ctx: Ctx, m: FullMessage, part: 'all' | 'text' | 'html' | 'headers'): void {
  if (part === 'text' || part === 'html') {
    const body = m[part];
    if (typeof body !== 'string') throw new CliError('no_body', `message ${String(m.id)} has no ${part} part`);
    ctx.out.text(body.replace(/\n$/, ''));
    return;
  }
  if (part === 'headers') {
    for (const [k, v] of Object.entries(m.headers ?? {})) ctx.out.text(`${k}: ${String(v)}`);
    return;
  }
  const attachments = m.attachments ?? [];
  printSummary(ctx, m, attachments.length === 0 ? [] : [
    ['Attachments', attachments.map((a, n) => `${n}: ${String(a.filename ?? '(unnamed)')} (${String(a.content_type)}, ${String(a.size)} B)`)],
  ]);
  ctx.out.line('');
  if (typeof m.text === 'string') ctx.out.text(m.text.replace(/\n$/, ''));
  else ctx.out.line(ctx.out.paint('dim', '(no text part; see --html)'));
}

/**
 * A file name from the sender's mail is untrusted: keep only its last path segment, without
 * controls (C0, DEL, C1: it is printed) or invisible format characters (a bidi override shows
 * `gpj.exe` as `exe.jpg`).
 */
function safeFilename(name: string | null, fallback: string): string {
  const base = path.basename((name ?? '').replace(/\\/g, '/')).replace(/[\x00-\x1f\x7f-\x9f\p{Cf}]/gu, '');
  return base === '' || base === '.' || base === '..' ? fallback : base;
}

export function registerMessages(program: Command): void {
  const messages = program.command('messages').description('list, read and delete the messages of an inbox');

  messages
    .command('list')
    .description('list messages, newest first')
    .argument('<inbox>', 'inbox address')
    .option('-l, --limit <n>', 'at most this many (1-100)', wholeNumber(1, 100), 10)
    .option('--unread', 'only unread messages')
    .action(async (inbox: string, flags: { limit: number; unread?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const res = await ctx.api.call('GET', `/v1/inboxes/${segment(inbox)}/messages`, { query: { limit: flags.limit, unread_only: flags.unread ? 'true' : undefined } });
      const rows = res.data as MessageSummary[];
      ctx.out.result(rows, () => ctx.out.table(rows, [
        { header: 'ID', value: (m) => m.id },
        { header: 'FROM', value: (m) => m.from, max: 30 },
        { header: 'SUBJECT', value: (m) => m.subject, max: 40 },
        { header: 'OTP', value: (m) => m.otp },
        { header: 'READ', value: (m) => m.read },
        { header: 'DATE', value: (m) => shortDate(m.date) },
      ], `no messages at ${inbox}`), () => rows.map((m) => String(m.id)));
    });

  messages
    .command('show')
    .description('show one message (marks it read)')
    .argument('<inbox>', 'inbox address')
    .argument('<id>', 'message id (msg_…)')
    .option('--text', 'print only the text body')
    .option('--html', 'print only the HTML body')
    .option('--headers', 'print only the headers')
    .action(async (inbox: string, id: string, flags: { text?: boolean; html?: boolean; headers?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const chosen = (['text', 'html', 'headers'] as const).filter((p) => flags[p]);
      if (chosen.length > 1) throw new CliError('usage', `--${chosen.join(' and --')} exclude each other`);
      const m = (await ctx.api.call('GET', messagePath(inbox, id))).data as FullMessage;
      ctx.out.result(m, () => printMessage(ctx, m, chosen[0] ?? 'all'), () => String(m.id));
    });

  messages
    .command('raw')
    .description('write the original RFC 5322 message to stdout (or -o FILE)')
    .argument('<inbox>', 'inbox address')
    .argument('<id>', 'message id (msg_…)')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (inbox: string, id: string, flags: { output?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const raw = await ctx.api.download(`${messagePath(inbox, id)}/raw`);
      if (flags.output && flags.output !== '-') {
        writeFileSync(flags.output, raw.bytes);
        ctx.out.note(`wrote ${raw.bytes.length} bytes to ${flags.output}`);
      } else if (ctx.out.tty) {
        // On a terminal the source is shown inert; piped, it is written byte for byte.
        ctx.out.stdout.write(inert(Buffer.from(raw.bytes).toString('utf8')));
      } else {
        ctx.out.stdout.write(raw.bytes);
      }
    });

  messages
    .command('attachment')
    .description('save attachment N (numbered from 0, as in messages show)')
    .argument('<inbox>', 'inbox address')
    .argument('<id>', 'message id (msg_…)')
    .argument('<n>', 'attachment number', wholeNumber(0))
    .option('-o, --output <file>', 'file to write ("-" for stdout); default: the attachment\'s own name, never overwritten')
    .action(async (inbox: string, id: string, n: number, flags: { output?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const file = await ctx.api.download(`${messagePath(inbox, id)}/attachments/${n}`);
      if (flags.output === '-') {
        // Piped, byte for byte; on a terminal inert, as `messages raw` (a sender's bytes may hold escapes).
        ctx.out.stdout.write(ctx.out.tty ? inert(Buffer.from(file.bytes).toString('utf8')) : file.bytes);
        return;
      }
      const target = flags.output ?? safeFilename(file.filename, `attachment-${n}`);
      try {
        writeFileSync(target, file.bytes, { flag: flags.output ? 'w' : 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new CliError('file_exists', `${target} already exists`, 'choose a file with -o FILE');
        throw err;
      }
      ctx.out.result({ file: target, bytes: file.bytes.length, content_type: file.contentType },
        () => ctx.out.done(`saved ${target} (${file.bytes.length} bytes, ${file.contentType})`), () => target);
    });

  messages
    .command('delete')
    .description('delete one message')
    .argument('<inbox>', 'inbox address')
    .argument('<id>', 'message id (msg_…)')
    .action(async (inbox: string, id: string, _flags: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const res = await ctx.api.call('DELETE', messagePath(inbox, id));
      ctx.out.result(payload(res), () => ctx.out.done(String(res.message)));
    });
}

