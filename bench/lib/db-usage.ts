// Where a data dir's bytes are: each LMDB env under it, read-only from outside the service (LMDB
// allows readers in other processes), with the pages each database holds and the env's free pages.
// The soak reports it, so a dir that outgrows its live data names the database that grew.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';

export interface EnvUsage {
  env: string;
  /** Bytes of the pages each named database holds (branch, leaf and overflow pages). */
  databases: Record<string, { entries: number; mb: number }>;
  /** Pages of the high-water mark that no named database holds: LMDB's free list (reusable) and its own bookkeeping, in MB. */
  free_mb: number;
  /** Pages ever used (the file's high-water mark), in MB. */
  used_mb: number;
}

type Stats = { pageSize: number; entryCount: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };

function envDirs(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...envDirs(p));
    else if (entry.name === 'data.mdb') found.push(dir);
  }
  return found;
}

const mb = (bytes: number) => Math.round(bytes / 1e4) / 100;

/** The usage of every env under `dir`. */
export function dataDirUsage(dir: string): EnvUsage[] {
  return envDirs(dir).map((envDir) => {
    const root = open({ path: envDir, readOnly: true, maxDbs: 64 });
    try {
      const databases: EnvUsage['databases'] = {};
      // The unnamed database's keys are the names of the others.
      const names = [...root.getKeys()].filter((k): k is string => typeof k === 'string');
      for (const name of names) {
        const s = root.openDB({ name }).getStats() as Stats;
        databases[name] = { entries: s.entryCount, mb: mb((s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize) };
      }
      const all = root.getStats() as Stats & { lastPageNumber: number };
      const held = Object.values(databases).reduce((sum, d) => sum + d.mb, 0);
      const used = mb(all.lastPageNumber * all.pageSize);
      return { env: path.relative(dir, envDir) || '.', databases, free_mb: Math.round((used - held) * 100) / 100, used_mb: used };
    } finally {
      void root.close();
    }
  });
}

