import test from 'ava';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// The folder graph of src/, read from the import statements themselves: arrows point one way, and
// nothing above the shard reaches into the actors (it talks to them through src/contract/).
const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');
const ABOVE_THE_SHARD = ['front', 'ingress', 'services', 'cli', 'contract', 'rpc', 'webhooks', 'pool', 'mail'];
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?(?:\bfrom\s*|\bimport\s*)['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The top folder under src/ of a path inside it. */
function folderOf(path: string): string {
  return relative(SRC, path).split(sep)[0]!;
}

/** Every arrow between folders, with one importing file per arrow for the failure message. */
function folderEdges(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sources(SRC)) {
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2]!;
      const from = folderOf(file);
      const to = folderOf(normalize(join(dirname(file), spec)));
      if (from === to || to.startsWith('..')) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      edges.get(from)!.set(to, relative(SRC, file));
    }
  }
  return edges;
}

/** A cycle through the folder graph as a list of folders, or null (depth-first, three colours). */
function findCycle(edges: Map<string, Map<string, string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of edges.keys()) {
    if (!state.has(node)) {
      const found = visit(node);
      if (found) return found;
    }
  }
  return null;
}

test('layout - the scanner sees the imports it must judge', (t) => {
  const edges = folderEdges();
  t.truthy(edges.get('front')?.has('services'), 'front → services is read from the sources');
  t.truthy(edges.get('shard')?.has('actors'), 'shard → actors is read from the sources');
  t.deepEqual(findCycle(new Map([['a', new Map([['b', 'x']])], ['b', new Map([['a', 'y']])]])), ['a', 'b', 'a']);
  t.is(findCycle(new Map([['a', new Map([['b', 'x']])]])), null);
});

test('layout - no cycle between the folders of src/', (t) => {
  const edges = folderEdges();
  const cycle = findCycle(edges);
  const detail = cycle?.slice(1).map((to, i) => `${cycle[i]} → ${to} (${edges.get(cycle[i]!)!.get(to)})`).join(', ');
  t.is(cycle, null, `folders import each other in a circle: ${detail}`);
});

/** Every import between two files of the same folder (type-only ones too), by file relative to src/. */
function fileEdgesWithinFolders(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sources(SRC)) {
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = normalize(join(dirname(file), m[1] ?? m[2]!)).replace(/\.js$/, '.ts');
      if (folderOf(target) !== folderOf(file)) continue;
      const from = relative(SRC, file);
      if (!edges.has(from)) edges.set(from, new Map());
      edges.get(from)!.set(relative(SRC, target), from);
    }
  }
  return edges;
}

test('layout - no circle of imports between the files of one folder, type-only ones included', (t) => {
  const edges = fileEdgesWithinFolders();
  t.truthy(edges.get(join('front', 'http-tier.ts'))?.size, 'the scanner reads imports inside a folder');
  const cycle = findCycle(edges);
  t.is(cycle, null, `files import each other in a circle: ${cycle?.join(' → ')}`);
});

test('layout - nothing above the shard imports src/actors/', (t) => {
  const edges = folderEdges();
  const offenders = ABOVE_THE_SHARD.filter((f) => edges.get(f)?.has('actors')).map((f) => `${edges.get(f)!.get('actors')}`);
  t.deepEqual(offenders, [], 'these reach into the actors instead of src/contract/');
});

/** Each library with a boundary of its own is imported by exactly one folder (STYLE.md). */
const LIBRARY_OWNERS: Record<string, string> = {
  lmdb: 'storage', '@grpc/grpc-js': 'rpc', '@grpc/proto-loader': 'rpc', piscina: 'pool', 'uWebSockets.js': 'front',
  'smtp-server': 'ingress', mailparser: 'mail', etcd3: 'cluster', mailauth: 'mail', htmlparser2: 'mail',
};
const BARE_IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?(?:\bfrom\s*|\bimport\s*)['"]([^.'"][^'"]*)['"]/g;

test('layout - each boundary library is imported by its one folder', (t) => {
  const wrong: string[] = [];
  for (const file of sources(SRC)) {
    for (const m of readFileSync(file, 'utf8').matchAll(BARE_IMPORT)) {
      const owner = LIBRARY_OWNERS[m[1]!];
      if (owner && folderOf(file) !== owner) wrong.push(`${relative(SRC, file)} imports ${m[1]}`);
    }
  }
  t.deepEqual(wrong, []);
});

/** The typed stores each actor may use: an actor never reads another actor's records. */
const ACTOR_STORES: Record<string, string[]> = {
  'account-actor.ts': ['accounts'],
  'account-domains.ts': ['accounts'],
  'oauth-actor.ts': ['tokens'],
  'inbox-actor.ts': ['inboxes', 'messages'],
  'inbox-waits.ts': ['messages'],
  'inbox-listing.ts': ['inboxes'],
  'inbox-reclaimer.ts': ['inboxes', 'messages'],
  'domain-actor.ts': ['domains'],
  'webhook-actor.ts': ['webhooks', 'outbox'],
  'webhook-registry.ts': ['webhooks'],
  'shard-actors.ts': ['inboxes', 'messages'],
  // The inbox actor's storage figures and retention sweep; the account's inbox slots.
  'inbox-storage.ts': ['inboxes', 'messages'],
  'retention.ts': ['inboxes', 'messages'],
  'inbox-allowance.ts': ['accounts'],
};

test('layout - each actor touches only its own stores', (t) => {
  const wrong: string[] = [];
  for (const file of sources(join(SRC, 'actors'))) {
    const name = relative(join(SRC, 'actors'), file);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?<![\w-])store\.(\w+)/g)) {
      const store = m[1]!;
      if (store === 'transaction' || store === 'close') continue;
      if (!(ACTOR_STORES[name] ?? []).includes(store)) wrong.push(`${name} uses store.${store}`);
    }
  }
  t.deepEqual(wrong, []);
});

test('layout - src/contract/ is a leaf apart from type-level configuration and utilities', (t) => {
  const allowed = new Set(['config', 'util']);
  const out = [...(folderEdges().get('contract')?.keys() ?? [])].filter((f) => !allowed.has(f));
  t.deepEqual(out, []);
});
