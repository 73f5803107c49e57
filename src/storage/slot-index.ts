// Where a record's slot is, for the lookups that do not know it: a token by its hash, a webhook or
// an outbox entry by id, an account's inboxes, domains and webhooks (their records live in the
// slot of the inbox or domain, DESIGN.md §8). One shard-wide database, `slot_index`, holds
// [db, ...key without its slot] → slot for the databases listed below. It is derived: every put
// and remove of those databases keeps it, whoever writes (a store, a slot move, replication), so
// it is neither in the oplog nor in a slot's snapshot, and `rebuild()` can make it again.
import type { Database, RootDatabase } from 'lmdb';
import { keyBatches, slotOfKey, type Key } from './keys.js';

/** The databases indexed, each by its key without the slot. */
const INDEXED: ReadonlySet<string> = new Set(['oauth_tokens', 'webhooks', 'outbox', 'inboxes_by_account', 'domains_by_account', 'webhooks_by_account']);
const BATCH = 5000;

type Parts = (string | number)[];

const instances = new WeakMap<RootDatabase, SlotIndex>();

/** The slot index of `root` (stores look records up through it when they do not know the slot). */
export function slotIndexOf(root: RootDatabase): SlotIndex {
  const found = instances.get(root);
  if (!found) throw new Error('open the shard store (openShardStore) before its stores');
  return found;
}

export class SlotIndex {
  readonly db: Database<number, Key>;

  constructor(root: RootDatabase) {
    this.db = root.openDB<number, Key>({ name: 'slot_index' });
    instances.set(root, this);
  }

  /** Hooks put/remove of an indexed database so that its index entries change with it. */
  attach<V>(name: string, target: Database<V, Key>): void {
    if (!INDEXED.has(name)) return;
    const put = target.put.bind(target) as (...args: unknown[]) => unknown;
    const remove = target.remove.bind(target) as (...args: unknown[]) => unknown;
    (target as unknown as { put: unknown }).put = (key: Key, ...rest: unknown[]) => {
      void this.db.put(indexKey(name, key), slotOfKey(name, key));
      return put(key, ...rest);
    };
    (target as unknown as { remove: unknown }).remove = (key: Key, ...rest: unknown[]) => {
      const at = indexKey(name, key);
      if (this.db.get(at) === slotOfKey(name, key)) void this.db.remove(at);
      return remove(key, ...rest);
    };
  }

  /** The slot of the record whose key, without its slot, is `parts`. */
  slot(db: string, parts: Parts): number | undefined {
    return this.db.get([db, ...parts]);
  }

  /** Index entries under `prefix` in key order: the key without its slot, and the slot. */
  *entries(db: string, prefix: Parts = []): Generator<{ parts: Parts; slot: number }> {
    const start = [db, ...prefix];
    for (const { key, value } of this.db.getRange({ start, end: [...start, '\uffff'] })) {
      yield { parts: (key as Parts).slice(1), slot: value };
    }
  }

  /** Index entries from `from` (inclusive) to the end of the database's entries, in key order. */
  *entriesFrom(db: string, from: Parts): Generator<{ parts: Parts; slot: number }> {
    for (const { key, value } of this.db.getRange({ start: [db, ...from], end: [db, '\uffff'] })) {
      yield { parts: (key as Parts).slice(1), slot: value };
    }
  }

  /** Makes the index again from the indexed databases, in bounded transactions (after a key-layout migration). */
  rebuild(root: RootDatabase): number {
    let written = 0;
    this.db.clearSync();
    for (const name of INDEXED) {
      const source = root.openDB<unknown, Key>({ name });
      for (const batch of keyBatches(source, {}, BATCH)) {
        root.transactionSync(() => { for (const key of batch) void this.db.put(indexKey(name, key), slotOfKey(name, key)); });
        written += batch.length;
      }
    }
    return written;
  }
}

function indexKey(db: string, key: Key): Key {
  return [db, ...(key as Parts).slice(1)];
}
