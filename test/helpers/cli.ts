// Runs the built client (`node bin/mailcue.js …`) as a child process, the way a shell or CI job
// does: its own env (MAILCUE_URL, MAILCUE_API_KEY, a temp XDG_CONFIG_HOME), stdin, exit code.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(ROOT, 'bin/mailcue.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
}

const configHomes: string[] = [];
// Removed when the test worker exits: a CLI run started by a test may still be writing to one.
process.once('exit', () => {
  for (const dir of configHomes) rmSync(dir, { recursive: true, force: true });
});

/** A temp config home, so no test reads or writes the real ~/.config; removed when the test process exits. */
export function tempConfigHome(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-cli-'));
  configHomes.push(dir);
  return dir;
}

/** The client env with none of the parent's MAILCUE_* settings leaking in. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('MAILCUE_') && k !== 'NO_COLOR') env[k] = v;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'], cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
