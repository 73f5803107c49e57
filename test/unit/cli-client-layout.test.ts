import test from 'ava';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The command-line client speaks only REST: src/cli/client/ imports its own files, node: built-ins
// and commander, never the service's code (shards, actors, storage, front), so it stays small and
// works against any Mailcue service. The one exception is type-only: the public shapes it reads
// (src/contract/shapes.ts), which the build erases.
const CLIENT = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/client');
const SPEC = /(?:^|\n)\s*(?:import|export)\b[^'"]*?(?:\bfrom\s*|\bimport\s*)['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

const SHAPES = '../../contract/shapes.js';

test('cli client layout - imports only its own folder, node built-ins, commander and the public shapes\' types', (t) => {
  const files = readdirSync(CLIENT).filter((f) => f.endsWith('.ts'));
  t.true(files.length >= 8, 'the scanner sees the client files');
  const seen = new Set<string>();
  for (const file of files) {
    for (const m of readFileSync(join(CLIENT, file), 'utf8').matchAll(SPEC)) {
      const spec = m[1] ?? m[2]!;
      seen.add(spec);
      const typeOnly = /^\s*import type\b/.test(m[0]);
      const allowed = spec.startsWith('node:') || spec === 'commander' || /^\.\/[a-z-]+\.js$/.test(spec) || (spec === SHAPES && typeOnly);
      t.true(allowed, `${file} imports ${spec}`);
    }
  }
  t.true(seen.has('commander') && seen.has('./http.js') && seen.has(SHAPES), 'the scanner reads the imports');
});
