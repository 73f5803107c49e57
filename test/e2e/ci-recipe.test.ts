import test from 'ava';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { sendMail } from '../helpers/mail.js';
import { freePort } from '../helpers/service.js';
import { startDnsServer } from '../helpers/dns-server.js';

// docs/cli.md's GitHub Actions job, run as written: its `run:` steps in order under bash as the
// runner does (`-eo pipefail`, GITHUB_ENV carried to later steps, RUNNER_TEMP), against a fresh
// clone of this repository and a stand-in for the app under test that mails a code over SMTP.
// `uses:` steps are what this machine already has (a checkout, Node 20); ports move to free ones.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Step { name?: string; uses?: string; run?: string; if?: string; env?: Record<string, string> }
interface Job { env: Record<string, string>; steps: Step[] }

function recipe(): Job {
  const doc = readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf8');
  const block = /```yaml\n(# \.github\/workflows\/[\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/cli.md has no workflow block');
  const workflow = parse(block[1]!) as { jobs: Record<string, Job> };
  return Object.values(workflow.jobs)[0]!;
}

/** The stand-in app: POST /signup mails a fresh code to the address, POST /signup/confirm checks it. */
async function startApp(smtpPort: () => number): Promise<{ url: string; confirmed: string[]; close(): void }> {
  const codes = new Map<string, string>();
  const confirmed: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      void (async () => {
        const input = JSON.parse(body || '{}') as { email?: string; code?: string };
        if (req.url === '/signup' && input.email) {
          const code = String(100_000 + Math.floor(Math.random() * 900_000));
          codes.set(input.email, code);
          await sendMail(smtpPort(), { from: 'Lantern <no-reply@lantern.example>', to: input.email, subject: 'Confirm your Lantern account', text: `Welcome to Lantern!\n\nYour confirmation code is ${code}. It expires in 10 minutes.` });
          res.writeHead(201).end();
        } else if (req.url === '/signup/confirm' && input.email && codes.get(input.email) === input.code) {
          confirmed.push(input.email);
          res.writeHead(200).end();
        } else {
          res.writeHead(400).end();
        }
      })().catch(() => res.writeHead(500).end());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, confirmed, close: () => server.close() };
}

/** GITHUB_ENV's `NAME=value` lines, as the runner reads them after a step. */
function githubEnv(file: string): Record<string, string> {
  return Object.fromEntries(readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

test('ci recipe - the GitHub Actions job in docs/cli.md starts Mailcue, signs up and confirms the mailed code', async (t) => {
  t.timeout(8 * 60_000);
  const job = recipe();
  const temp = mkdtempSync(path.join(os.tmpdir(), 'mailcue-ci-'));
  const [http, smtp] = [await freePort(), await freePort()];
  const app = await startApp(() => smtp);
  // The mail's sender check asks a DNS server on loopback, not the machine's resolver.
  const dns = await startDnsServer();
  t.teardown(() => dns.close());
  const envFile = path.join(temp, 'github-env');
  writeFileSync(envFile, '');
  mkdirSync(path.join(temp, 'npm-global'));
  let env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...job.env,
    // Where this run differs from a GitHub runner: the clone's source, free ports, a private npm prefix for `npm link`.
    MAILCUE_REPO: `file://${ROOT}`,
    MAILCUE_URL: `http://127.0.0.1:${http}`,
    MAILCUE_SMTP: `127.0.0.1:${smtp}`,
    MAILCUE_HTTP_PORT: String(http),
    MAILCUE_SMTP_PORT: String(smtp),
    MAILCUE_OPS_PORT: '0',
    MAILCUE_DNS_SERVERS: dns.address,
    APP_URL: app.url,
    RUNNER_TEMP: temp,
    GITHUB_ENV: envFile,
    NPM_CONFIG_PREFIX: path.join(temp, 'npm-global'),
    PATH: `${path.join(temp, 'npm-global/bin')}:${process.env.PATH}`,
    NO_COLOR: '1',
  };
  const groups: number[] = [];
  t.teardown(() => {
    for (const pgid of groups) {
      try {
        process.kill(-pgid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    app.close();
    rmSync(temp, { recursive: true, force: true });
  });

  const ran: string[] = [];
  for (const step of job.steps) {
    if (!step.run || step.if === 'failure()') continue;
    // Each step is its own process group: the server it leaves in the background is stopped at the end.
    const shell = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], { cwd: ROOT, env: { ...env, ...step.env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    groups.push(shell.pid!);
    let output = '';
    shell.stdout.on('data', (b: Buffer) => (output += b));
    shell.stderr.on('data', (b: Buffer) => (output += b));
    const code = await new Promise<number | null>((resolve) => shell.on('exit', resolve));
    appendFileSync(path.join(temp, 'steps.log'), output);
    t.is(code, 0, `step "${step.name}" failed:\n${output.slice(-3000)}`);
    if (code !== 0) return;
    env = { ...env, ...githubEnv(envFile) };
    ran.push(step.name ?? step.run.slice(0, 20));
  }
  t.true(ran.includes('Sign up with a fresh inbox and confirm the code'));
  t.is(app.confirmed.length, 1, 'the app saw its own code come back');
  t.regex(env.MAILCUE_API_KEY ?? '', /^mc_/, 'the account step handed its key on through GITHUB_ENV');
});
