// The data directory holds every LMDB env, the master key and the shards' sockets: it is created
// 0700 and everything in it 0600 (DESIGN §7). A umask of 077 makes that true of every file the
// process creates later (LMDB's data.mdb and lock.mdb, unix sockets); what an older version left
// behind is tightened once at start.
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

function tighten(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    try {
      if (entry.isDirectory()) {
        chmodSync(full, DIR_MODE);
        tighten(full);
      } else {
        chmodSync(full, FILE_MODE);
      }
    } catch {
      /* not ours to change (another owner): the directory's own 0700 still guards it */
    }
  }
}

/** Call once on the main thread, before any shard, key or socket is created. */
export function prepareDataDir(dir: string): void {
  process.umask(0o077);
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  chmodSync(dir, DIR_MODE);
  tighten(dir);
}
