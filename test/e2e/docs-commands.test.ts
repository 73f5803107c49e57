import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Every command the manual shows exists as shown: each `mailcue …` line names real commands of the
// built CLI and only options they take, each `npm run X` is a script of package.json, and each
// MAILCUE_ variable is one the code reads. (The quick start itself runs in readme-quickstart.)
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'dist/cli/main.js');
const MANUAL = ['README.md', 'deploy/README.md', 'bench/README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

const helps = new Map<string, string>();
function helpOf(words: string[]): string {
  const key = words.join(' ');
  if (!helps.has(key)) helps.set(key, execFileSync('node', [CLI, ...words, '--help'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } }));
  return helps.get(key)!;
}

/** The subcommand names a help text lists under "Commands:". */
function subcommandsOf(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1];
  if (section === undefined) return [];
  return [...section.split(/\n\n/)[0]!.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!);
}

/** `mailcue` invocations at a command position: line start, after `npx `, `$(`, `| ` or a backtick. */
function invocations(text: string): string[] {
  return [...text.matchAll(/(?:^|\$\(|`|\|\s*|npx\s+)mailcue((?:[ \t]+[^\s`)|;&]+)*)/gm)].map((m) => m[1]!.trim());
}

const manual = MANUAL.map((doc) => ({ doc, text: readFileSync(path.join(ROOT, doc), 'utf8') }));

test('docs commands - every `mailcue` command in the manual exists, with the options it shows', (t) => {
  const wrong: string[] = [];
  let checked = 0;
  for (const { doc, text } of manual) {
    for (const line of invocations(text)) {
      const words = line.split(/[ \t]+/).filter(Boolean);
      const path: string[] = [];
      for (const word of words) {
        if (word.startsWith('-')) break;
        const subs = subcommandsOf(helpOf(path));
        if (subs.length === 0) break; // a leaf: the rest are its arguments
        if (!subs.includes(word)) {
          wrong.push(`${doc}: mailcue ${line} (no command "${word}" under "mailcue ${path.join(' ')}")`);
          break;
        }
        path.push(word);
      }
      const help = helpOf(path);
      for (const option of words.filter((w) => /^--[a-z][a-z-]*/.test(w)).map((w) => w.replace(/=.*$/, ''))) {
        if (!help.includes(option)) wrong.push(`${doc}: mailcue ${line} (no option ${option} on "mailcue ${path.join(' ')}")`);
      }
      checked++;
    }
  }
  t.true(checked > 20, `checked ${checked} invocations`);
  t.deepEqual(wrong, []);
});

test('docs commands - every `npm run` script the manual names is in package.json', (t) => {
  const scripts = Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
  const missing = manual.flatMap(({ doc, text }) => [...text.matchAll(/npm run (?:-s )?([a-z][\w:-]*)/g)].map((m) => m[1]!).filter((s) => !scripts.includes(s)).map((s) => `${doc}: npm run ${s}`));
  t.deepEqual(missing, []);
});

test('docs commands - every MAILCUE_ variable the manual names is read by the code', (t) => {
  const sources = execFileSync('grep', ['-rhoE', 'MAILCUE_[A-Z0-9_]+', path.join(ROOT, 'src'), path.join(ROOT, 'bench'), path.join(ROOT, 'deploy'), path.join(ROOT, 'test')], { encoding: 'utf8' });
  const known = new Set(sources.split('\n'));
  const unknown = manual.flatMap(({ doc, text }) =>
    [...new Set([...text.matchAll(/MAILCUE_[A-Z0-9_]*[A-Z0-9]/g)].map((m) => m[0]))]
      // `MAILCUE_TLS_*` and `MAILCUE_` as a prefix name families, not one variable.
      .filter((v) => !known.has(v) && ![...known].some((k) => k.startsWith(`${v}_`)))
      .map((v) => `${doc}: ${v}`),
  );
  t.deepEqual(unknown, []);
});
