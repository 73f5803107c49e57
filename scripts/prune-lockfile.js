// After `npm install`, drop optional dependencies that the lockfile lists but could not resolve
// (this registry has no darwin/win32 builds of @msgpackr-extract), which `npm ci` would otherwise
// reject as "Missing ... from lock file". Usage: node scripts/prune-lockfile.js
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const paths = Object.keys(lock.packages);
const present = (name) => paths.some((k) => k === `node_modules/${name}` || k.endsWith(`/node_modules/${name}`));
let pruned = 0;
for (const entry of Object.values(lock.packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    if (!present(name)) {
      delete entry.optionalDependencies[name];
      pruned++;
    }
  }
}
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`prune-lockfile: removed ${pruned} unresolvable optional dependencies`);
