// Attack (issue 33): a mail whose subject, body and link carry terminal control sequences (colour,
// cursor moves, an OSC 52 clipboard write, 8-bit CSI) and GitHub Actions workflow commands. The
// built CLI against a real server prints none of them: no control character reaches stdout, no
// line starts a workflow command, and the verification link has no control or white space.
import test from 'ava';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sendMail } from '../helpers/mail.js';
import { runCli } from '../helpers/cli.js';
import { startService, type Service } from '../helpers/service.js';

let svc: Service;
let env: Record<string, string>;
let inbox: string;
const ESC = '\x1b';
const SUBJECT = `Code ${ESC}[31mred${ESC}[0m ${ESC}]52;c;ZXZpbA==\x07 ${ESC}[2J${ESC}[H \u009b31m \u009d0;title\u0007 done`;
const TEXT = [
  'Your verification code is 481516.',
  '::set-output name=token::stolen',
  '::error::boom',
  `  ##[warning]legacy`,
  `Confirm: https://app.example.com/verify?t=abc${ESC}[2K`,
].join('\n');

test.before(async () => {
  svc = await startService();
  const { api_key: key } = await svc.createAccount('growth');
  env = { MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: key };
  inbox = ((await (await svc.api(key, 'POST', '/v1/inboxes', {})).json()) as { data: { address: string } }).data.address;
  await sendMail(svc.smtpPort, { to: inbox, subject: SUBJECT, text: TEXT, html: `<p>${TEXT.replace(/\n/g, '<br>')}</p><a href="https://app.example.com/verify?t=abc%0A">Verify</a>` });
});
test.after.always(async () => {
  await svc?.stop();
});

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const WORKFLOW = /^\s*(?:::|##\[)/m;

function assertInert(t: import('ava').ExecutionContext, out: string, what: string): void {
  t.false(CONTROL.test(out), `${what}: ${JSON.stringify(out.match(CONTROL))}`);
  t.false(WORKFLOW.test(out), `${what} starts a workflow command: ${JSON.stringify(out)}`);
}

test('cli - mail-derived fields reach the terminal and the CI log inert, in every output form', async (t) => {
  const list = await runCli(['messages', 'list', inbox], { env });
  t.is(list.code, 0, list.stderr);
  t.true(list.stdout.includes('done'), list.stdout);
  assertInert(t, list.stdout, 'messages list');
  const id = /msg_\w+/.exec(list.stdout)![0];
  for (const args of [['messages', 'show', inbox, id], ['messages', 'show', inbox, id, '--text'], ['messages', 'show', inbox, id, '--headers'], ['messages', 'list', inbox, '--json']]) {
    const res = await runCli(args, { env });
    t.is(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    assertInert(t, res.stdout, args.join(' '));
    assertInert(t, res.stderr, `${args.join(' ')} (stderr)`);
  }
  const text = await runCli(['messages', 'show', inbox, id, '--text'], { env });
  t.true(text.stdout.includes(': :set-output'), 'the workflow command is still readable, broken up');
  const json = JSON.parse((await runCli(['messages', 'list', inbox, '--json'], { env })).stdout);
  const link: string | null = json[0].verification_link;
  t.truthy(link);
  t.false(/[\s\x00-\x1f\x7f-\x9f]/.test(link!), `verification_link ${JSON.stringify(link)}`);
});

test('cli - an attachment\'s name from the mail is saved and printed without controls or bidi overrides', async (t) => {
  // Its own inbox: the other test reads the newest message of the first.
  const own = ((await (await svc.api(env.MAILCUE_API_KEY!, 'POST', '/v1/inboxes', {})).json()) as { data: { address: string } }).data.address;
  await sendMail(svc.smtpPort, { to: own, subject: 'named attachment', text: 'see attached', attachments: [{ filename: `inv\u009b31m\x7foice\u202egpj.exe`, content: 'x' }] });
  const id = (JSON.parse((await runCli(['messages', 'list', own, '--json'], { env })).stdout) as { id: string }[])[0]!.id;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-cli-inert-'));
  try {
    const saved = await runCli(['messages', 'attachment', own, id, '0'], { env, cwd: dir });
    t.is(saved.code, 0, saved.stderr);
    assertInert(t, saved.stdout, 'messages attachment');
    t.false(/\p{Cf}/u.test(saved.stdout), JSON.stringify(saved.stdout));
    t.deepEqual(readdirSync(dir), ['inv31moicegpj.exe']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
