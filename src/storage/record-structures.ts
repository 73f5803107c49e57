// How a database's msgpack records share their structures. lmdb-js encodes an object as a msgpackr
// record: a structure (its keys, in order) and the values. Without shared structures every record
// carries its own structure, and decoding it defines that structure again and reads the record by
// the slow, never-optimised path. With them, each database keeps its structures once, in the
// shard-wide `structures` database (not under a key of its own: a key there would show up in range
// scans, entry counts and the oplog's hooks), and a record names its structure by id: a shard's read
// of the newest message took 12-20 µs before and 7-12 µs after, a delivery (`npm run bench:deliver`)
// 351-377 µs and 312-344 µs, and the env is a fifth smaller (bench/results/history/2026-11-levers.json).
//
// Records written before (key layout 2) still carry their own structures and read as they did.
// Only the first 32 structures of a database are shared; rarer shapes carry their own, as before.
// Another handle on the same env (a second process, the admin CLI) that meets an id it does not
// know reloads the list, and one whose list is stale when it adds a structure finds out here
// (`isCompatible`) and encodes again: msgpackr's protocol for shared structures.
import type { Database, RootDatabase } from 'lmdb';

const STRUCTURES_DB = 'structures';
/** The `structures` database of each env, opened once (opening a database commits a transaction). */
const structuresOf = new WeakMap<RootDatabase, Database<unknown[], string>>();

export interface SharedStructuresOptions {
  getStructures(): unknown;
  saveStructures(structures: unknown, isCompatible: unknown): boolean;
}

/** The encoder options that make database `name` of `root` share its structures. */
export function sharedStructures(root: RootDatabase, name: string): SharedStructuresOptions {
  let store = structuresOf.get(root);
  if (!store) structuresOf.set(root, (store = root.openDB<unknown[], string>({ name: STRUCTURES_DB })));
  return {
    getStructures: () => store.get(name),
    // Called while a record is encoded, usually inside the transaction writing it: the structures
    // commit with the first record that uses them. (Our write transactions never roll back a
    // callback's writes; only start-up migrations use aborting ones, and a failed start reloads.)
    saveStructures: (structures, isCompatible) =>
      root.transactionSync(() => {
        const existing = store.get(name);
        const compatible = typeof isCompatible === 'function' ? isCompatible(existing) : !(existing && existing.length !== isCompatible);
        if (!compatible) return false;
        void store.put(name, structures as unknown[]);
        return true;
      }, NESTED_IN_CURRENT),
  };
}

/**
 * transactionSync flags: 0 runs the callback inside the write transaction already open (encoding
 * happens inside one), and otherwise opens a plain one, as lmdb-js's own shared structures do.
 */
const NESTED_IN_CURRENT = 0 as unknown as Parameters<RootDatabase['transactionSync']>[1];
