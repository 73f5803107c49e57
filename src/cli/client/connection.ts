// Where the client connects and with which key: flag, then env, then the profile `mailcue login`
// wrote. Keys are stored per service URL, so `--url` to another service never sends a saved key
// that belongs elsewhere. The file holds a secret: mode 0600 in a 0700 directory.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError } from './errors.js';

export const DEFAULT_URL = 'http://localhost:8080';

export interface Profile {
  /** The service `mailcue login` last logged in to: the default URL afterwards. */
  current: string | null;
  hosts: Record<string, { api_key: string; account?: string }>;
}

export interface ConnectionFlags {
  url?: string;
  apiKey?: string;
}

export interface Connection {
  url: string;
  apiKey: string | undefined;
}

export function configPath(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'mailcue', 'config.json');
}

export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError('usage', `invalid service URL: ${raw}`, 'use a full URL such as http://localhost:8080');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('usage', `invalid service URL: ${raw}`, 'use http:// or https://');
  return url.href.replace(/\/+$/, '');
}

export function readProfile(): Profile {
  const file = configPath();
  if (!existsSync(file)) return { current: null, hosts: {} };
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Profile>;
    return { current: typeof parsed.current === 'string' ? parsed.current : null, hosts: parsed.hosts && typeof parsed.hosts === 'object' ? parsed.hosts : {} };
  } catch (err) {
    throw new CliError('bad_config', `cannot read ${file}: ${(err as Error).message}`, 'fix or delete the file, then run mailcue login');
  }
}

export function writeProfile(profile: Profile): string {
  const file = configPath();
  const dir = path.dirname(file);
  if (Object.keys(profile.hosts).length === 0) {
    rmSync(file, { force: true });
    return file;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  // Written beside the target, then renamed: a reader never sees half a file, and the key is
  // never readable by others, not even for a moment.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return file;
}

export function resolveConnection(flags: ConnectionFlags, profile: Profile = readProfile()): Connection {
  const url = normalizeUrl(flags.url || process.env.MAILCUE_URL || profile.current || DEFAULT_URL);
  const apiKey = flags.apiKey || process.env.MAILCUE_API_KEY || profile.hosts[url]?.api_key || undefined;
  return { url, apiKey };
}
