// The only importer of lmdb. One env per shard, one named database per record kind, and the key
// layouts in one place. The shard is the single writer: every read-modify-write runs inside
// `transaction()`, which lmdb-js batches per event turn and resolves after the commit.
import { open, type Database, type RootDatabase } from 'lmdb';
import { mkdirSync } from 'node:fs';
import type { AccountRecord, InboxRecord, MessageRecord } from '../actors/model.js';

export type Key = string | (string | number)[];

export interface ShardStore {
  readonly root: RootDatabase;
  readonly accounts: Database<AccountRecord, string>;
  readonly inboxes: Database<InboxRecord, string>;
  /** [account_id, address] → 1: an account's inboxes on this shard. */
  readonly inboxesByAccount: Database<number, Key>;
  /** [address, message_id] → message. */
  readonly messages: Database<MessageRecord, Key>;
  /** [address, message_id] → RFC 5322 bytes: the layout before sources were shared (read, removed). */
  readonly raw: Database<Buffer, Key>;
  /** message_id → RFC 5322 bytes, once per delivery: every recipient on this shard shares it. */
  readonly rawShared: Database<Buffer, string>;
  /** message_id → how many stored messages still point at the shared source. */
  readonly rawRefs: Database<number, string>;
  /** Generic per-feature databases (domains, webhooks, outbox, oauth) opened on demand. */
  db<V>(name: string): Database<V, Key>;
  transaction<T>(work: () => T): Promise<T>;
  close(): Promise<void>;
}

export function openShardStore(dir: string): ShardStore {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const root = open({ path: dir, maxDbs: 32, mapSize: 2 ** 34, compression: false });
  const cache = new Map<string, Database<unknown, Key>>();
  const db = <V>(name: string): Database<V, Key> => {
    let found = cache.get(name);
    if (!found) {
      found = root.openDB<unknown, Key>({ name });
      cache.set(name, found);
    }
    return found as Database<V, Key>;
  };
  return {
    root,
    accounts: root.openDB<AccountRecord, string>({ name: 'accounts' }),
    inboxes: root.openDB<InboxRecord, string>({ name: 'inboxes' }),
    inboxesByAccount: root.openDB<number, Key>({ name: 'inboxes_by_account' }),
    messages: root.openDB<MessageRecord, Key>({ name: 'messages' }),
    raw: root.openDB<Buffer, Key>({ name: 'raw', encoding: 'binary' }),
    rawShared: root.openDB<Buffer, string>({ name: 'raw_shared', encoding: 'binary' }),
    rawRefs: root.openDB<number, string>({ name: 'raw_refs' }),
    db,
    transaction: (work) => root.transaction(work),
    close: () => root.close(),
  };
}

/** Range bounds covering every key that starts with `prefix` (lmdb orders arrays element-wise). */
export function prefixRange(prefix: (string | number)[]): { start: Key; end: Key } {
  return { start: [...prefix], end: [...prefix, '\uffff'] };
}
