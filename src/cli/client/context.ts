// What every client command runs with: the resolved connection, the API client and the output,
// built from the global options (`--url`, `--api-key`, `--json`, `--quiet`) wherever they appear.
import { InvalidArgumentError, type Command } from 'commander';
import { resolveConnection, type Connection } from './connection.js';
import { Api } from './http.js';
import { Output } from './output.js';

export interface GlobalOptions {
  url?: string;
  apiKey?: string;
  json?: boolean;
  quiet?: boolean;
}

export interface Ctx {
  conn: Connection;
  api: Api;
  out: Output;
  opts: GlobalOptions;
}

export function context(cmd: Command): Ctx {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  const out = new Output({ json: opts.json === true, quiet: opts.quiet === true });
  const conn = resolveConnection({ url: opts.url, apiKey: opts.apiKey });
  return { conn, api: new Api(conn.url, conn.apiKey), out, opts };
}

/** Parses a whole number option; a bad one is a usage error (exit 2), as commander's own are. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}.`);
    }
    return n;
  };
}
