// End to end: the command-line client (`node bin/mailcue.js …`) as a child process against a
// live service: inboxes, messages, wait, account, login/logout, errors and exit codes.
import test from 'ava';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, tempConfigHome, type CliOptions } from '../helpers/cli.js';
import { sendMail } from '../helpers/mail.js';
import { freePort, startService, type Service } from '../helpers/service.js';
import { parked } from '../helpers/wait.js';

type Json = Record<string, any>;
let svc: Service;
let key: string;

test.before(async () => {
  svc = await startService();
  key = (await svc.createAccount('free')).api_key;
});
test.after.always(async () => {
  await svc?.stop();
});

/** The client as a user of the account runs it (env connection, a config home of its own). */
function cli(args: string[], options: CliOptions = {}) {
  return runCli(args, { ...options, env: { MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: key, XDG_CONFIG_HOME: tempConfigHome(), ...options.env } });
}

async function json(args: string[], options?: CliOptions): Promise<any> {
  const r = await cli([...args, '--json'], options);
  if (r.code !== 0) throw new Error(`mailcue ${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function newInbox(): Promise<string> {
  const r = await cli(['inbox', 'create']);
  if (r.code !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

test('cli inbox - create prints the address alone when piped, list and delete it; --json is the API data', async (t) => {
  const address = await newInbox();
  t.regex(address, /^[a-z0-9]+@mailcue\.test$/);

  const named = await json(['inbox', 'create', 'cli-named@mailcue.test']);
  t.is(named.address, 'cli-named@mailcue.test');
  t.is(named.message_count, 0);
  const onDomain = await cli(['inbox', 'create', '--domain', 'mailcue.test', '--quiet']);
  t.is(onDomain.code, 0);
  t.regex(onDomain.stdout, /^[a-z0-9]+@mailcue\.test\n$/);

  const listed = await json(['inbox', 'list']);
  t.true(Array.isArray(listed));
  t.true(listed.some((i: Json) => i.address === address));
  const plain = await cli(['inbox', 'list']);
  t.is(plain.code, 0);
  t.true(plain.stdout.split('\n').some((row) => row.split('\t')[0] === address), 'tab-separated rows when piped');
  const quiet = await cli(['inbox', 'list', '-q']);
  t.true(quiet.stdout.split('\n').includes(address));

  const del = await cli(['inbox', 'delete', address]);
  t.is(del.code, 0);
  t.is(del.stdout, '', 'nothing extra on stdout when piped');
  const delJson = await json(['inbox', 'delete', 'cli-named@mailcue.test']);
  t.regex(delJson.message, /deleted/);
  t.false((await json(['inbox', 'list'])).some((i: Json) => i.address === address));
});

test('cli inbox - errors: taken address (1), foreign domain (1), unknown inbox (3), with the server code on one line', async (t) => {
  const address = await newInbox();
  const taken = await cli(['inbox', 'create', address]);
  t.is(taken.code, 1);
  t.regex(taken.stderr, /^error: address_taken: .+\n$/);
  t.is(taken.stdout, '');

  const foreign = await cli(['inbox', 'create', '--domain', 'gmail.com']);
  t.is(foreign.code, 1);
  t.regex(foreign.stderr, /^error: domain_not_verified: .+\nhint: .*mailcue domains add/);

  const missing = await cli(['inbox', 'delete', 'nobody-here@mailcue.test']);
  t.is(missing.code, 3);
  t.regex(missing.stderr, /^error: inbox_not_found: /);
});

test('cli auth - a bad key exits 4 with the hint; no key at all exits 4 too; usage errors exit 2', async (t) => {
  const bad = await cli(['inbox', 'list'], { env: { MAILCUE_API_KEY: 'mc_wrong' } });
  t.is(bad.code, 4);
  t.regex(bad.stderr, /^error: unauthorized: .+\nhint: check MAILCUE_API_KEY or run mailcue login\n$/);
  const none = await cli(['account'], { env: { MAILCUE_API_KEY: '' } });
  t.is(none.code, 4);
  t.regex(none.stderr, /mailcue login/);

  for (const args of [['inbox', 'frobnicate'], ['messages', 'show', 'only-one-arg'], ['messages', 'list', 'a@b.c', '--limit', '0'], ['wait', 'a@b.c', '--otp', '--link'], ['nope']]) {
    const r = await cli(args);
    t.is(r.code, 2, args.join(' '));
    t.not(r.stderr, '');
  }
  const closed = await freePort();
  const unreachable = await cli(['inbox', 'list'], { env: { MAILCUE_URL: `http://127.0.0.1:${closed}` } });
  t.is(unreachable.code, 1);
  t.regex(unreachable.stderr, new RegExp(`^error: connection_failed: cannot reach http://127\\.0\\.0\\.1:${closed}: ECONNREFUSED\nhint: is the service running there\\?`));
});

test('cli help - --help on every command, exit codes documented at the top', async (t) => {
  const top = await cli(['--help']);
  t.is(top.code, 0);
  for (const c of ['inbox', 'messages', 'wait', 'domains', 'webhooks', 'account', 'login', 'logout', 'completion', 'serve', 'front', 'shard', 'admin']) t.regex(top.stdout, new RegExp(`\\n  ${c}\\b`));
  t.regex(top.stdout, /124\s+timed out/);
  t.regex(top.stdout, /4\s+authentication failed/);
  for (const args of [['inbox', 'create'], ['messages', 'attachment'], ['wait'], ['domains', 'verify'], ['webhooks', 'deliveries'], ['admin', 'create-account']]) {
    const r = await cli([...args, '--help']);
    t.is(r.code, 0, args.join(' '));
    t.regex(r.stdout, new RegExp(`^Usage: mailcue ${args.join(' ')}`));
    t.regex(r.stdout, /Exit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 auth, 5 plan, 124 timeout/);
  }
  // A reader that stops early (`| head -1`) ends the client quietly, without a stack trace.
  const { execFileSync } = await import('node:child_process');
  const { BIN } = await import('../helpers/cli.js');
  const piped = execFileSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" --help 2>&1 | head -1`], { encoding: 'utf8' });
  t.is(piped, 'Usage: mailcue [options] [command]\n');
});

test.serial('cli messages - list, show (--text/--html/--headers), raw, attachment, delete', async (t) => {
  const inbox = await newInbox();
  await sendMail(svc.smtpPort, {
    to: inbox, subject: 'Your code', text: 'Your verification code is 482913.\n', html: '<p>Your verification code is <b>482913</b>.</p>',
    headers: { 'X-Test': 'cli' },
    attachments: [{ filename: 'report.txt', content: 'attached bytes\n' }, { filename: '../../evil.txt', content: 'x' }],
  });
  const list = await json(['messages', 'list', inbox]);
  t.is(list.length, 1);
  const id = list[0].id as string;
  t.is(list[0].otp, '482913');
  t.is(list[0].read, false);
  t.deepEqual((await json(['messages', 'list', inbox, '--unread', '--limit', '5'])).map((m: Json) => m.id), [id]);
  const rows = await cli(['messages', 'list', inbox]);
  t.is(rows.stdout.split('\t')[0], id);

  const shown = await cli(['messages', 'show', inbox, id]);
  t.is(shown.code, 0);
  t.regex(shown.stdout, /Subject\tYour code/);
  t.regex(shown.stdout, /OTP\t482913/);
  t.regex(shown.stdout, /0: report\.txt \(text\/plain/);
  t.regex(shown.stdout, /Your verification code is 482913\.\n$/);
  t.is((await cli(['messages', 'show', inbox, id, '--text'])).stdout, 'Your verification code is 482913.\n');
  t.regex((await cli(['messages', 'show', inbox, id, '--html'])).stdout, /^<p>Your verification code is <b>482913<\/b>\.<\/p>/);
  t.regex((await cli(['messages', 'show', inbox, id, '--headers'])).stdout, /^x-test: cli$/im);
  const full = await json(['messages', 'show', inbox, id]);
  t.is(full.id, id);
  t.is(full.attachments.length, 2);
  t.deepEqual((await json(['messages', 'list', inbox, '--unread'])), [], 'show marked it read');

  const raw = await cli(['messages', 'raw', inbox, id]);
  t.is(raw.code, 0);
  t.regex(raw.stdout, /^Subject: Your code\r?$/m);
  t.regex(raw.stdout, /X-Test: cli/);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-att-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const target = path.join(dir, 'out.txt');
  const saved = await cli(['messages', 'attachment', inbox, id, '0', '-o', target]);
  t.is(saved.code, 0, saved.stderr);
  t.is(readFileSync(target, 'utf8'), 'attached bytes\n');
  // Without -o the file keeps its own name, stripped of any path, in the working directory.
  const own = await cli(['messages', 'attachment', inbox, id, '1'], { cwd: dir });
  t.is(own.code, 0, own.stderr);
  t.is(readFileSync(path.join(dir, 'evil.txt'), 'utf8'), 'x');
  const again = await cli(['messages', 'attachment', inbox, id, '1'], { cwd: dir });
  t.is(again.code, 1);
  t.regex(again.stderr, /^error: file_exists: /);
  const stdoutCopy = await cli(['messages', 'attachment', inbox, id, '0', '-o', '-']);
  t.is(stdoutCopy.stdout, 'attached bytes\n');
  const none = await cli(['messages', 'attachment', inbox, id, '7', '-o', path.join(dir, 'x')]);
  t.is(none.code, 3);
  t.regex(none.stderr, /^error: attachment_not_found: /);

  const missing = await cli(['messages', 'show', inbox, 'msg_0000000000000000000']);
  t.is(missing.code, 3);
  t.regex(missing.stderr, /^error: message_not_found: /);
  const del = await cli(['messages', 'delete', inbox, id]);
  t.is(del.code, 0);
  t.deepEqual(await json(['messages', 'list', inbox]), []);
  t.is((await cli(['messages', 'delete', inbox, id])).code, 3);
});

test.serial('cli wait --otp - prints only the code mailed while it waits, exit 0', async (t) => {
  const inbox = await newInbox();
  const waiting = cli(['wait', inbox, '--otp', '--timeout', '60']);
  await parked(svc);
  // A message without a code first: wait --otp keeps waiting past it.
  await sendMail(svc.smtpPort, { to: inbox, subject: 'Welcome', text: 'Hello there, nothing to see.' });
  await sendMail(svc.smtpPort, { to: inbox, subject: 'Sign-in', text: 'Your one-time code: 731904' });
  const r = await waiting;
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, '731904\n');
  t.is(r.stderr, '', 'nothing extra when not on a terminal');
  t.is(await svc.parkedWaiters(), 0);
});

test.serial('cli wait - the message as JSON; --link prints the link; --since start sees mail that came first', async (t) => {
  const inbox = await newInbox();
  await sendMail(svc.smtpPort, { to: inbox, subject: 'Confirm', text: 'Confirm: https://app.example.com/verify?t=abc123' });
  const link = await cli(['wait', inbox, '--since', 'start', '--link', '--timeout', '20']);
  t.is(link.code, 0, link.stderr);
  t.is(link.stdout, 'https://app.example.com/verify?t=abc123\n');

  const first = (await json(['messages', 'list', inbox]))[0];
  const waiting = json(['wait', inbox, '--since', first.id, '--timeout', '60']);
  await parked(svc);
  await sendMail(svc.smtpPort, { to: inbox, subject: 'Second', text: 'no code' });
  const message = await waiting;
  t.is(message.subject, 'Second');
  t.is(message.inbox, inbox);
  t.not(message.id, first.id);
});

test.serial('cli wait - exits 124 when nothing arrives within a 10 s --timeout, and frees its waiter', async (t) => {
  const inbox = await newInbox();
  const r = await cli(['wait', inbox, '--otp', '--timeout', '10']);
  t.is(r.code, 124);
  t.is(r.stdout, '');
  t.regex(r.stderr, /^error: timeout: no message with a code at .+ within 10 s\n$/);
  t.is(await svc.parkedWaiters(), 0);
  const missing = await cli(['wait', 'nobody-here@mailcue.test', '--timeout', '10']);
  t.is(missing.code, 3);
});

test.serial('cli inbox create --wait-otp - address on stderr at once, then the code on stdout', async (t) => {
  const { spawn } = await import('node:child_process');
  const { BIN, cliEnv } = await import('../helpers/cli.js');
  const child = spawn(process.execPath, [BIN, 'inbox', 'create', '--wait-otp', '--timeout', '60'], {
    env: cliEnv({ MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: key, XDG_CONFIG_HOME: tempConfigHome() }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b) => (stdout += b));
  const address = await new Promise<string>((resolve) => {
    child.stderr.on('data', (b) => {
      stderr += b;
      if (stderr.includes('\n')) resolve(stderr.split('\n')[0]!);
    });
  });
  t.regex(address, /^[a-z0-9]+@mailcue\.test$/);
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  await sendMail(svc.smtpPort, { to: address, subject: 'Code', text: 'Your verification code is 5521' });
  t.is(await exited, 0);
  t.is(stdout, '5521\n');
});

test('cli account - plan, credits and limits; --json is the API data', async (t) => {
  const a = await json(['account']);
  t.is(a.plan, 'free');
  t.is(typeof a.credits_left, 'number');
  t.is(typeof a.limits.requests_per_minute, 'number');
  const human = await cli(['account']);
  t.regex(human.stdout, /^Plan\tfree$/m);
  t.regex(human.stdout, /^Credits\t/m);
  t.is((await cli(['account', '-q'])).stdout, 'free\n');
});

test('cli login - checks the key, writes a 0600 profile in a 0700 dir, later commands use it; logout forgets it', async (t) => {
  const home = tempConfigHome();
  const env = { XDG_CONFIG_HOME: home };
  const wrong = await runCli(['login', '--url', svc.baseUrl], { env, input: 'mc_not_a_key\n' });
  t.is(wrong.code, 4);
  const file = path.join(home, 'mailcue', 'config.json');
  t.false(existsSync(file), 'a rejected key is not saved');

  const ok = await runCli(['login', '--url', svc.baseUrl], { env, input: `${key}\n` });
  t.is(ok.code, 0, ok.stderr);
  t.is(statSync(file).mode & 0o777, 0o600);
  t.is(statSync(path.dirname(file)).mode & 0o777, 0o700);
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  t.is(saved.current, svc.baseUrl.replace(/\/$/, ''));
  t.is(saved.hosts[saved.current].api_key, key);

  // No MAILCUE_URL, no MAILCUE_API_KEY: the profile supplies both.
  const account = await runCli(['account', '--json'], { env });
  t.is(account.code, 0, account.stderr);
  t.is(JSON.parse(account.stdout).plan, 'free');
  // Another URL never gets the saved key.
  const elsewhere = await runCli(['account', '--url', 'http://127.0.0.1:9'], { env });
  t.is(elsewhere.code, 4);

  const out = await runCli(['logout'], { env });
  t.is(out.code, 0);
  t.false(existsSync(file));
  t.is((await runCli(['account'], { env })).code, 4);
});

test('cli completion - bash completes commands and options from the command tree; zsh script is generated', async (t) => {
  const { execFileSync } = await import('node:child_process');
  const script = (await cli(['completion', 'bash'])).stdout;
  const complete = (line: string) => execFileSync('bash', ['-c', `${script}\nCOMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _mailcue; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' }).trim().split('\n');
  t.deepEqual(complete('mailcue me').slice(0, 1), ['messages']);
  t.deepEqual(complete("mailcue messages ''").slice(0, 5), ['list', 'show', 'raw', 'attachment', 'delete']);
  t.true(complete("mailcue wait a@b.c --"). includes('--otp'));
  t.true(complete("mailcue --json domains ''").includes('verify'));
  const zsh = (await cli(['completion', 'zsh'])).stdout;
  t.regex(zsh, /^#compdef mailcue/);
  // zsh runs the script with its completion builtins stood in for by printers of what they are given.
  const zcomplete = (words: string) => execFileSync('zsh', ['-c', `compdef() { :; }\n${zsh}\n_describe() { print -l -- "\${(@P)2}"; }; compadd() { shift; print -l -- "$@"; }; _files() { print FILES; }\nwords=(${words}); CURRENT=\${#words}; _mailcue`], { encoding: 'utf8' }).trim().split('\n');
  t.deepEqual(zcomplete("mailcue webhooks ''").map((l) => l.split(':')[0]), ['add', 'list', 'delete', 'deliveries']);
  t.true(zcomplete("mailcue inbox create --").includes('--wait-otp'));
  t.regex(zcomplete("mailcue ''").join('\n'), /^wait:wait for the next message/m);
  t.is((await cli(['completion', 'fish'])).code, 2);
});
