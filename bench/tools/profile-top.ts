// Summarises V8 .cpuprofile files (node --cpu-prof) into the top self-time functions, optionally
// only over a window of the profile (e.g. the last 16 s: the scenario that ran last).
//   node --import tsx bench/tools/profile-top.ts [--top 10] [--last-s 16] [--skip-end-s 1] [--by-module] FILE...
// --by-module adds self time by package (node_modules/<pkg>), dist/ folder, or node internals.
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
const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !(all[i - 1]?.startsWith('--') && all[i - 1] !== '--by-module'));

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
