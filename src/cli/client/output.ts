// All the client prints goes through here: `--json` (the API's `data`, one document), `--quiet`
// (identifiers only), aligned tables with colour on a terminal, tab-separated rows otherwise, and
// the spinner of `wait`. Colour only on a TTY and never with NO_COLOR (https://no-color.org).
import type { Writable } from 'node:stream';
import type { CliError } from './errors.js';

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Longest cell shown on a terminal; longer text is cut with an ellipsis. */
  max?: number;
}

type Stream = Writable & { isTTY?: boolean };

const ANSI = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;
export type Style = keyof typeof ANSI;

export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly tty: boolean;
  readonly errTty: boolean;
  private readonly color: boolean;
  private readonly errColor: boolean;

  constructor(options: OutputOptions, readonly stdout: Stream = process.stdout, readonly stderr: Stream = process.stderr) {
    this.json = options.json;
    this.quiet = options.quiet;
    this.tty = stdout.isTTY === true;
    this.errTty = stderr.isTTY === true;
    const noColor = (process.env.NO_COLOR ?? '') !== '';
    this.color = this.tty && !noColor;
    this.errColor = this.errTty && !noColor;
  }

  paint(style: Style, text: string, forStderr = false): string {
    return (forStderr ? this.errColor : this.color) ? `\x1b[${ANSI[style]}m${text}\x1b[0m` : text;
  }

  /** One result: JSON document, the quiet identifier(s), or the human rendering. */
  result(data: unknown, human: () => void, quiet: () => string | string[] | null = () => null): void {
    if (this.json) return this.line(inertJson(JSON.stringify(data, null, this.tty ? 2 : undefined)));
    if (this.quiet) {
      const q = quiet();
      for (const l of Array.isArray(q) ? q : q === null ? [] : [q]) this.line(l);
      return;
    }
    human();
  }

  /** Rows as an aligned table on a terminal, tab-separated without a header when piped. */
  table<T>(rows: readonly T[], columns: readonly Column<T>[], empty = 'nothing to show'): void {
    if (!this.tty) {
      for (const row of rows) this.line(columns.map((c) => cell(c.value(row)).replace(/[\t\n]/g, ' ')).join('\t'));
      return;
    }
    if (rows.length === 0) return this.note(empty);
    const cells = rows.map((row) => columns.map((c) => clip(cell(c.value(row)).replace(/\s+/g, ' '), c.max)));
    const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
    const pad = (values: string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
    this.line(this.paint('bold', pad(columns.map((c) => c.header))));
    for (const r of cells) this.line(pad(r));
  }

  /** Label/value pairs: aligned on a terminal, tab-separated when piped. */
  record(pairs: ReadonlyArray<readonly [string, unknown]>): void {
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) {
      if (this.tty) this.line(`${this.paint('bold', `${k}:`.padEnd(width + 1))} ${cell(v)}`);
      else this.line(`${k}\t${cell(v)}`);
    }
  }

  line(text: string): void {
    this.stdout.write(`${text}\n`);
  }

  /** A line of text that came from a mail or the server: written inert (see inert()). */
  text(text: string): void {
    this.line(inert(text));
  }

  /** A remark for people (stderr, so stdout stays parseable); silent with --quiet or --json. */
  note(text: string): void {
    if (!this.quiet && !this.json) this.stderr.write(`${text}\n`);
  }

  /** A success sentence on a terminal; scripts get nothing extra on stdout. */
  done(text: string): void {
    if (this.quiet || this.json) return;
    if (this.tty) this.line(`${this.paint('green', '✓')} ${text}`);
    else this.stderr.write(`${text}\n`);
  }

  error(err: CliError | Error): void {
    const code = 'code' in err && typeof err.code === 'string' ? `${err.code}: ` : '';
    this.stderr.write(`${this.paint('red', 'error', true)}: ${inert(code)}${inert(oneLine(err.message))}\n`);
    const hint = (err as CliError).hint;
    if (hint) this.stderr.write(`${this.paint('dim', 'hint', true)}: ${inert(oneLine(hint))}\n`);
    for (const l of (err as CliError).details ?? []) this.stderr.write(`${inert(l)}\n`);
  }

  /** A spinner with elapsed seconds on stderr, drawn only when stderr is a terminal. */
  spinner(label: string): { stop(): void } {
    if (!this.errTty || this.quiet) return { stop() {} };
    const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
    const started = Date.now();
    let i = 0;
    const draw = () => {
      const s = Math.floor((Date.now() - started) / 1000);
      this.stderr.write(`\r\x1b[K${this.paint('cyan', frames[i++ % frames.length]!, true)} ${label} ${this.paint('dim', `${s}s`, true)}`);
    };
    draw();
    const timer = setInterval(draw, 100);
    return {
      stop: () => {
        clearInterval(timer);
        this.stderr.write('\r\x1b[K');
      },
    };
  }
}

function cell(v: unknown): string {
  if (v === null || v === undefined || v === '') return '-';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (Array.isArray(v)) return v.map(cell).join(', ');
  if (typeof v === 'object') return inert(JSON.stringify(v));
  return inert(String(v));
}

// Terminal control sequences (issue 33): CSI (cursor moves, colours), OSC (titles, OSC 52 clipboard
// writes, hyperlinks) and other ESC sequences, then any C0/C1 control left but tab and line feed.
const ESCAPE_SEQUENCE = /\x1b\[[0-?]*[ -\/]*[@-~]?|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x9b[0-?]*[ -\/]*[@-~]?|\x9d[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -\/]*[0-~]?/g;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/** A GitHub Actions workflow command (`::set-output`, `::error::`, `##[command]`) at a line's start. */
const WORKFLOW_COMMAND = /^([ \t]*)(::|##\[)/gm;

/**
 * Mail-derived text made inert for a terminal and a CI log: escape sequences and control
 * characters removed, and a line that would be read as a workflow command broken up (`: :`).
 */
export function inert(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '').replace(WORKFLOW_COMMAND, (_, lead: string, cmd: string) => `${lead}${cmd === '::' ? ': :' : '# #['}`);
}

/** JSON with the C1 controls escaped too (JSON.stringify escapes only C0): the same data, inert bytes. */
function inertJson(json: string): string {
  return json.replace(/[\x7f-\x9f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function clip(text: string, max: number | undefined): string {
  return max !== undefined && text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** `2026-11-23T15:48:31.123Z` → `2026-11-23 15:48:31` for tables. */
export function shortDate(iso: unknown): string {
  return typeof iso === 'string' ? iso.replace('T', ' ').replace(/\.\d+Z$/, '').replace(/Z$/, '') : '-';
}
