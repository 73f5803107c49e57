// A data directory's identity (DESIGN.md §8 "Identity"): a random id created with the directory and
// kept in it. A shard that comes back under the same member id with another incarnation (an empty
// or replaced disk) is a new, empty member: the controller fails over its slots first and it copies
// as a follower before it serves. The id is registered in etcd with the member; an older copy of
// the directory (which carries the same id) is told apart by its generation (generations.ts).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const FILE = 'incarnation';

/** The directory's incarnation id; a directory that has none (new, or emptied) gets a new one now. */
export function incarnationOf(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, FILE);
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f-]{36}$/.test(id)) return id;
  }
  // Written before any data: a directory with data but no id is one restored without it (a new member too).
  return renewIncarnation(dataDir);
}

/** A new incarnation for the directory: what it holds is no longer taken for what it held. */
export function renewIncarnation(dataDir: string): string {
  const id = randomUUID();
  writeFileSync(path.join(dataDir, FILE), `${id}\n`, { mode: 0o600, flush: true });
  return id;
}
