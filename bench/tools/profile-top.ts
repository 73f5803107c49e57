// Summarises V8 .cpuprofile files (node --cpu-prof) into the top self-time functions, optionally
// only over a window of the profile (e.g. the last 16 s: the scenario that ran last).
//   node --import tsx bench/tools/profile-top.ts [--top 10] [--last-s 16] [--skip-end-s 1] [--by-module] [--long-tasks MS] FILE...
// --by-module adds self time by package (node_modules/<pkg>), dist/ folder, or node internals.
// --long-tasks MS lists each stretch of at least MS ms without an idle sample (a turn of the event
// loop that held every other request on the thread back) with the frames that spent it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { numberArg } from '../lib/args.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const top = numberArg('--top', 10);
const lastS = numberArg('--last-s', Infinity);
const skipEndS = numberArg('--skip-end-s', 0);
const byModule = process.argv.includes('--by-module');
const longTaskMs = numberArg('--long-tasks', 0);
const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !(all[i - 1]?.startsWith('--') && all[i - 1] !== '--by-module'));

function frameName(n: Node): string {
  const f = n.callFrame;
  const name = f.functionName || '(anonymous)';
  return f.url ? `${name} ${path.basename(f.url)}:${f.lineNumber + 1}` : name;
}

/** The stretches of at least `minMs` with no idle sample, each with the frames (self or below) that took most of it. */
function longTasks(p: Profile, byId: Map<number, Node>, minMs: number): void {
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let t = p.startTime;
  let start = -1;
  let inclusive = new Map<string, number>();
  const flush = (endT: number) => {
    const ms = (endT - start) / 1000;
    if (start >= 0 && ms >= minMs) {
      const rows = [...inclusive].filter(([k]) => k !== '(root)').sort((a, b) => b[1] - a[1]).slice(0, top);
      console.log(`  ${ms.toFixed(1)} ms at +${((start - p.startTime) / 1e6).toFixed(2)} s`);
      for (const [k, us] of rows) console.log(`    ${(us / 1000).toFixed(1).padStart(6)} ms  ${k}`);
    }
    start = -1;
    inclusive = new Map();
  };
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i]!;
    const dt = p.timeDeltas[i + 1] ?? 0;
    const n = byId.get(p.samples[i]!)!;
    if (n.callFrame.functionName === '(idle)') {
      flush(t);
      continue;
    }
    if (start < 0) start = t;
    // Inclusive time: each distinct frame on the sample's stack once.
    const seen = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const name = frameName(byId.get(id)!);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
    }
  }
  flush(t);
}

function moduleOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const dist = /\/dist\/(.+)\/[^/]+$/.exec(url);
  if (dist) return `dist/${dist[1]}`;
  return url.startsWith('node:') ? 'node:internal' : path.basename(url);
}

for (const file of files) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  if (longTaskMs > 0) {
    console.log(`\n${path.basename(file)}: stretches of at least ${longTaskMs} ms without idle`);
    longTasks(p, byId, longTaskMs);
    continue;
  }
  const self = new Map<string, number>();
  const mods = new Map<string, number>();
  const end = p.endTime - skipEndS * 1e6;
  const begin = end - lastS * 1e6;
  let t = p.startTime;
  let total = 0;
  let idle = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i]!;
    if (t < begin || t > end) continue;
    const dt = p.timeDeltas[i + 1] ?? 0;
    const n = byId.get(p.samples[i]!)!;
    const f = n.callFrame;
    const name = f.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle += dt;
      continue;
    }
    const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '';
    const key = `${name} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
    const mod = moduleOf(f.url, name);
    mods.set(mod, (mods.get(mod) ?? 0) + dt);
    total += dt;
  }
  console.log(`\n${path.basename(file)}: ${(total / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle in the window`);
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [k, us] of rows) console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
  if (byModule) {
    console.log('  by module:');
    for (const [k, us] of [...mods].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
  }
}
