// Key helpers shared by the typed stores. lmdb orders array keys element by element, so a prefix
// of an array key bounds a contiguous range. Only src/storage/ builds keys.
import type { Database, RootDatabase } from 'lmdb';
import type { Oplog } from './oplog.js';

export type Key = string | (string | number)[];

/** Range bounds covering every key that starts with `prefix`. */
export function prefixRange(prefix: (string | number)[]): { start: Key; end: Key } {
  return { start: [...prefix], end: [...prefix, '\uffff'] };
}

/** The element at `index` of every key under `prefix`, in key order. */
export function keyParts<V>(db: Database<V, Key>, prefix: (string | number)[], index: number): string[] {
  const out: string[] = [];
  for (const key of db.getKeys(prefixRange(prefix))) out.push((key as string[])[index]!);
  return out;
}

/** Entries of a database (for shard stats). */
export function entryCount(db: Database<unknown, Key> | Database<unknown, string>): number {
  return (db.getStats() as { entryCount: number }).entryCount;
}

const oplogs = new WeakMap<RootDatabase, Oplog>();

/** Every database opened on `root` from now on logs its slot-bound writes to `oplog`. */
export function registerOplog(root: RootDatabase, oplog: Oplog): Oplog {
  oplogs.set(root, oplog);
  return oplog;
}

export function openDb<V, K extends Key = Key>(root: RootDatabase, name: string, binary = false): Database<V, K> {
  const db = root.openDB<V, K>(binary ? { name, encoding: 'binary' } : { name });
  oplogs.get(root)?.attach(name, db as unknown as Database<V, Key>);
  return db;
}
