// The only importer of lmdb. One env per shard, one named database per record kind, and the key
// layouts in one place. The shard is the single writer: every read-modify-write runs inside
// `transaction()`, which lmdb-js batches per event turn and resolves after the commit.
import { open, type Database, type RootDatabase } from 'lmdb';
import { mkdirSync } from 'node:fs';
import type { AccountRecord, InboxRecord, MessageRecord } from '../actors/model.js';
import { Oplog, type OplogEntry } from './oplog.js';

export type Key = string | (string | number)[];

export interface ShardStore {
  readonly root: RootDatabase;
  readonly accounts: Database<AccountRecord, string>;
  readonly inboxes: Database<InboxRecord, string>;
  /** [account_id, address] → 1: an account's inboxes on this shard. */
  readonly inboxesByAccount: Database<number, Key>;
  /** [address, message_id] → message. */
  readonly messages: Database<MessageRecord, Key>;
  /** [address, message_id] → RFC 5322 bytes. */
  readonly raw: Database<Buffer, Key>;
  /** Generic per-feature databases (domains, webhooks, outbox, oauth) opened on demand. */
  db<V>(name: string): Database<V, Key>;
  /** Every write of a slot-bound record is logged here too, in the same transaction. */
  readonly oplog: Oplog;
  transaction<T>(work: () => T): Promise<T>;
  close(): Promise<void>;
}

export function openShardStore(dir: string): ShardStore {
  mkdirSync(dir, { recursive: true });
  const root = open({ path: dir, maxDbs: 32, mapSize: 2 ** 34, compression: false });
  const cache = new Map<string, Database<unknown, Key>>();
  const oplog = new Oplog(root.openDB<OplogEntry, Key>({ name: 'oplog' }), (name, key) => db(name).get(key));
  const db = <V>(name: string): Database<V, Key> => {
    let found = cache.get(name);
    if (!found) {
      found = root.openDB<unknown, Key>({ name });
      cache.set(name, found);
      oplog.attach(name, found);
    }
    return found as Database<V, Key>;
  };
  const named = <V>(name: string, options: { encoding?: 'binary' } = {}): Database<V, Key> => {
    const opened = root.openDB<V, Key>({ name, ...options });
    cache.set(name, opened as Database<unknown, Key>);
    oplog.attach(name, opened);
    return opened;
  };
  return {
    root,
    accounts: named<AccountRecord>('accounts') as unknown as Database<AccountRecord, string>,
    inboxes: named<InboxRecord>('inboxes') as unknown as Database<InboxRecord, string>,
    inboxesByAccount: named<number>('inboxes_by_account'),
    messages: named<MessageRecord>('messages'),
    raw: named<Buffer>('raw', { encoding: 'binary' }),
    db,
    oplog,
    transaction: (work) => root.transaction(work),
    close: () => {
      oplog.close();
      return root.close();
    },
  };
}

/** Range bounds covering every key that starts with `prefix` (lmdb orders arrays element-wise). */
export function prefixRange(prefix: (string | number)[]): { start: Key; end: Key } {
  return { start: [...prefix], end: [...prefix, '\uffff'] };
}
