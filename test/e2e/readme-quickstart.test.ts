import test from 'ava';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/service.js';
import { startDnsServer } from '../helpers/dns-server.js';

// The README's quick start, run as written on a fresh clone of this repository: `npm ci`, then the
// try-it block (start in the background, an account, an inbox, a mail over SMTP, its code). Only
// the ports move to free ones, so the test never collides with a service the developer runs.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The fenced `sh` blocks of the README's "Quick start" section. */
function quickStartBlocks(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 3));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test('readme - the quick start runs as written on a fresh clone: npm ci, start, account, inbox, mail, code', async (t) => {
  t.timeout(8 * 60_000);
  const [setup, tryIt] = quickStartBlocks();
  t.truthy(setup?.includes('npm ci && npm start'), 'the first block is the two set-up commands');
  t.truthy(tryIt, 'a try-it block follows');

  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-readme-'));
  const clone = path.join(dir, 'mailcue');
  const [http, smtp] = [await freePort(), await freePort()];
  // The mail's sender check asks a DNS server on loopback, not the machine's resolver.
  const dns = await startDnsServer();
  t.teardown(() => dns.close());
  const env = {
    ...process.env,
    MAILCUE_DNS_SERVERS: dns.address,
    MAILCUE_HTTP_PORT: String(http),
    MAILCUE_SMTP_PORT: String(smtp),
    MAILCUE_OPS_PORT: '0',
    MAILCUE_URL: `http://localhost:${http}`,
    NO_COLOR: '1',
  };
  execFileSync('git', ['clone', '--quiet', '--depth', '1', `file://${ROOT}`, clone], { stdio: 'ignore' });
  const npmCi = setup!.split('\n')[0]!.split('&&')[0]!.trim();
  t.is(npmCi, 'npm ci');
  execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: clone, env, stdio: 'ignore' });

  const script = tryIt!.replaceAll('localhost:8080', `localhost:${http}`).replaceAll('localhost:2525', `localhost:${smtp}`);
  // The block leaves `npm start` running in the background: run it as a process group of its own
  // and stop the whole group, the server with it.
  const shell = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    try {
      process.kill(-shell.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    rmSync(dir, { recursive: true, force: true });
  });
  let out = '';
  let err = '';
  shell.stdout.on('data', (b: Buffer) => (out += b));
  shell.stderr.on('data', (b: Buffer) => (err += b));
  const code = await new Promise<number | null>((resolve) => shell.on('exit', resolve));
  t.is(code, 0, `the block failed:\n${err.slice(-2000)}`);

  // The server's own log lines share the terminal: pick out what the two read commands printed.
  const lines = out.split('\n');
  const listing = lines.find((l) => l.startsWith('{"success":'));
  t.truthy(listing, `the REST listing was printed:\n${out.slice(-2000)}`);
  const latest = JSON.parse(listing!) as { success: boolean; data: Array<{ otp: string | null; subject: string }> };
  t.true(latest.success);
  t.is(latest.data[0]?.subject, 'Your code');
  t.is(latest.data[0]?.otp, '482913');
  t.true(lines.includes('482913'), 'the CLI prints the code alone on its line');
});
