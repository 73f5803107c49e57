// End to end: the client under a pseudo-terminal (`script -qc …`, util-linux), where people see
// it: aligned tables with colour (none with NO_COLOR), and the spinner with elapsed time of wait.
import test from 'ava';
import { spawn } from 'node:child_process';
import { BIN, cliEnv, tempConfigHome } from '../helpers/cli.js';
import { sendMail } from '../helpers/mail.js';
import { startService, type Service } from '../helpers/service.js';
import { parked } from '../helpers/wait.js';

let svc: Service;
let key: string;

test.before(async () => {
  svc = await startService();
  key = (await svc.createAccount('free')).api_key;
});
test.after.always(async () => {
  await svc?.stop();
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `mailcue ARGS` on a pseudo-terminal; stdout and stderr both reach it, as in a terminal. */
function onTerminal(args: string[], env: Record<string, string> = {}): Promise<{ code: number; screen: string }> {
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: cliEnv({ MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: key, XDG_CONFIG_HOME: tempConfigHome(), TERM: 'xterm', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (b) => (screen += b));
    child.stderr.on('data', (b) => (screen += b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, screen }));
  });
}

async function createInbox(): Promise<string> {
  const res = await svc.api(key, 'POST', '/v1/inboxes', {});
  return ((await res.json()) as { data: { address: string } }).data.address;
}

test.serial('cli tty - inbox list is an aligned table with a bold header; NO_COLOR turns colour off', async (t) => {
  const a = await createInbox();
  const b = await createInbox();
  const { code, screen } = await onTerminal(['inbox', 'list']);
  t.is(code, 0, screen);
  const lines = screen.split('\r\n');
  const header = lines.find((l) => l.includes('ADDRESS'))!;
  t.regex(header, /^\x1b\[1mADDRESS +MESSAGES  UNREAD  CREATED\x1b\[0m$/);
  const row = lines.find((l) => l.startsWith(a))!;
  t.regex(row, new RegExp(`^${a.replace(/[.]/g, '\\.')}\\s+0\\s+0\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$`));
  const messagesAt = header.replace('\x1b[1m', '').indexOf('MESSAGES');
  t.is(row.slice(messagesAt - 2, messagesAt + 1), '  0', 'columns line up under the header');

  const plain = await onTerminal(['inbox', 'list'], { NO_COLOR: '1' });
  t.is(plain.code, 0);
  t.true(plain.screen.includes('ADDRESS'));
  t.false(plain.screen.includes('\x1b['), 'no escape sequences with NO_COLOR');
});

test.serial('cli tty - wait shows a spinner with elapsed seconds on the terminal, clears it, then prints the code', async (t) => {
  const inbox = await createInbox();
  const waiting = onTerminal(['wait', inbox, '--otp', '--timeout', '60']);
  await parked(svc);
  await sendMail(svc.smtpPort, { to: inbox, subject: 'Code', text: 'Your verification code is 604211' });
  const { code, screen } = await waiting;
  t.is(code, 0, screen);
  t.regex(screen, new RegExp(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏](\\x1b\\[0m)? waiting for a code at ${inbox.replace('.', '\\.')} (\\x1b\\[2m)?\\d+s`));
  t.true(screen.includes('\r\x1b[K604211\r\n'), 'the spinner line is cleared before the code');
  t.is(await svc.parkedWaiters(), 0);
});

test.serial('cli tty - a create is a sentence on a terminal; an error is red with its hint', async (t) => {
  const created = await onTerminal(['inbox', 'create']);
  t.is(created.code, 0);
  t.regex(created.screen, /✓(\x1b\[0m)? created (\x1b\[1m)?[a-z0-9]+@mailcue\.test/);
  const failed = await onTerminal(['inbox', 'list'], { MAILCUE_API_KEY: 'mc_wrong' });
  t.is(failed.code, 4);
  t.regex(failed.screen, /\x1b\[31merror\x1b\[0m: unauthorized: .+\r\n\x1b\[2mhint\x1b\[0m: check MAILCUE_API_KEY or run mailcue login/);
});

test.serial('cli tty - an attachment written to the terminal (-o -) is shown inert; piped it stays byte for byte', async (t) => {
  const inbox = await createInbox();
  const payload = 'before \x1b]52;c;ZXZpbA==\x07 \x1b[2J\x1b[H after';
  await sendMail(svc.smtpPort, { to: inbox, subject: 'escapes attached', text: 'see attached', attachments: [{ filename: 'a.txt', content: payload }] });
  const list = (await (await svc.api(key, 'GET', `/v1/inboxes/${inbox}/messages`)).json()) as { data: { id: string }[] };
  const id = list.data[0]!.id;
  const shown = await onTerminal(['messages', 'attachment', inbox, id, '0', '-o', '-'], { NO_COLOR: '1' });
  t.is(shown.code, 0, shown.screen);
  t.true(shown.screen.includes('before') && shown.screen.includes('after'), shown.screen);
  t.false(/\x1b/.test(shown.screen), JSON.stringify(shown.screen));
  const piped = await new Promise<Buffer>((resolve) => {
    const child = spawn(process.execPath, [BIN, 'messages', 'attachment', inbox, id, '0', '-o', '-'], { env: cliEnv({ MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: key, XDG_CONFIG_HOME: tempConfigHome() }) });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    child.on('close', () => resolve(Buffer.concat(chunks)));
  });
  t.is(piped.toString(), payload);
});
