// Every database of a shard's LMDB env and how its keys are built; only src/storage/ builds keys.
// A slot-bound key is [slot, ...] (DESIGN.md §8 "Storage"): its record's slot first, so a slot's
// records are one contiguous range in each database and a slot moves or drops as a range scan.
// lmdb orders array keys element by element, so any prefix of an array key bounds a range.
import type { Database, RootDatabase } from 'lmdb';
import { SLOT_COUNT, slotOf } from '../cluster/slots.js';
import { sharedStructures } from './record-structures.js';

export type Key = string | (string | number)[];

/**
 * The slot-bound databases, in snapshot order, with the routing key their slot comes from
 * (DESIGN.md §1 ownership). Webhooks and their indexes, deliveries and outbox entries live in their
 * inbox's slot; OAuth tokens in their account's. Shard-wide databases are not listed here:
 * `webhook_keys` (a cache of each account's sealed API key, sent along with a slot's webhooks),
 * `slot_index` (derived, see slot-index.ts), `oplog` (keyed [slot, seq] itself) and `meta`.
 */
export const SLOT_DATABASES = [
  'accounts', // [slot(id), id]
  'account_domains', // [slot(account_id), account_id, domain]
  'account_inboxes', // [slot(account_id), account_id, address]: the inboxes the account holds, counted for its limit
  'oauth_tokens', // [slot(account_id), hash]
  'inboxes', // [slot(address), address]
  'inboxes_by_account', // [slot(address), account_id, address]
  'messages', // [slot(address), address, message_id]
  'message_digests', // [slot(address), address, 'd' | 'm', …]
  'raw', // [slot(address), address, message_id]: sources of the layout before raw_shared
  'raw_shared', // [slot(address), message_id]: one copy per slot of its recipients
  'raw_refs', // [slot(address), message_id] → how many messages of the slot share it, when more than one
  'domains', // [slot(domain), domain, account_id]
  'domains_by_account', // [slot(domain), account_id, domain]
  'webhooks', // [slot(inbox), id]
  'webhooks_by_inbox', // [slot(inbox), inbox, id]
  'webhooks_by_account', // [slot(inbox), account_id, id]
  'webhook_deliveries', // [slot(inbox), id, at_ms, event_id, attempt]
  'outbox', // [slot(inbox), due_ms, event_id]
  'attachments', // [slot(address), message_id, n]: an attachment's decoded bytes, stored beside its source (one copy per slot, like raw_shared)
  'inbox_tombstones', // [slot(address), address] → {account_id, at}: a deleted inbox whose messages are still being removed
  'freed_addresses', // [slot(address), address] → {account_id, at}: a deleted inbox's address, held for its last owner (DESIGN §7)
] as const;

const SLOT_BOUND = new Set<string>(SLOT_DATABASES);
/** Databases whose values are raw bytes (opened with binary encoding). */
export const BINARY_DATABASES: ReadonlySet<string> = new Set(['raw', 'raw_shared', 'attachments']);

export function isSlotBound(db: string): boolean {
  return SLOT_BOUND.has(db);
}

/** A slot-bound key: the slot of `routing`, then `parts`. */
export function inSlot(routing: string, ...parts: (string | number)[]): (string | number)[] {
  return [slotOf(routing), ...parts];
}

/** The slot a slot-bound key starts with; throws on a key without one (a store bug, never data). */
export function slotOfKey(db: string, key: Key): number {
  const slot = Array.isArray(key) ? key[0] : undefined;
  if (typeof slot !== 'number' || !Number.isInteger(slot) || slot < 0 || slot >= SLOT_COUNT) {
    throw new Error(`${db}: key ${JSON.stringify(key)} does not start with a slot`);
  }
  return slot;
}

/** Range bounds covering every key that starts with `prefix`. */
export function prefixRange(prefix: (string | number)[]): { start: Key; end: Key } {
  return { start: [...prefix], end: [...prefix, '\uffff'] };
}

/** Range bounds covering every key of one slot. */
export function slotRange(slot: number): { start: Key; end: Key } {
  return { start: [slot], end: [slot + 1] };
}

/** The element at `index` of every key under `prefix`, in key order. */
export function keyParts<V>(db: Database<V, Key>, prefix: (string | number)[], index: number): string[] {
  const out: string[] = [];
  for (const key of db.getKeys(prefixRange(prefix))) out.push((key as string[])[index]!);
  return out;
}

/**
 * The entries of a range in batches of at most `size`, each read whole before it is handed out, so
 * the caller may write (even remove what it was given) between batches; the next batch starts
 * after the last key of the one before.
 */
export function* batches<V>(db: Database<V, Key>, range: { start?: Key; end?: Key }, size: number): Generator<{ key: Key; value: V }[]> {
  for (let start = range.start, exclusiveStart = false; ; exclusiveStart = true) {
    const batch = [...db.getRange({ start, end: range.end, exclusiveStart, limit: size })];
    if (batch.length > 0) yield batch;
    if (batch.length < size) return;
    start = batch[batch.length - 1]!.key;
  }
}

/** The keys of a range in batches, as batches() (values are not read). */
export function* keyBatches(db: Database<unknown, Key>, range: { start?: Key; end?: Key }, size: number): Generator<Key[]> {
  for (let start = range.start, exclusiveStart = false; ; exclusiveStart = true) {
    const batch = [...db.getKeys({ start, end: range.end, exclusiveStart, limit: size })];
    if (batch.length > 0) yield batch;
    if (batch.length < size) return;
    start = batch[batch.length - 1]!;
  }
}

/** Entries of a database (for shard stats). */
export function entryCount(db: Database<unknown, Key> | Database<unknown, string>): number {
  return (db.getStats() as { entryCount: number }).entryCount;
}

/** What keeps itself in step with the writes of the databases it is attached to: the oplog, the slot and message indexes. */
export interface WriteWatcher {
  attach<V>(name: string, target: Database<V, Key>): void;
}
const hooks = new WeakMap<RootDatabase, WriteWatcher[]>();

/** Every database opened on `root` from now on is attached to each watcher (the oplog, the slot index, the message index). */
export function registerHooks(root: RootDatabase, ...watchers: WriteWatcher[]): void {
  hooks.set(root, watchers);
}

export function openDb<V, K extends Key = Key>(root: RootDatabase, name: string): Database<V, K> {
  const db = root.openDB<V, K>(BINARY_DATABASES.has(name) ? { name, encoding: 'binary' } : { name, ...sharedStructures(root, name) });
  for (const watcher of hooks.get(root) ?? []) watcher.attach(name, db as unknown as Database<V, Key>);
  return db;
}
