// A slot's data as a stream of records: the snapshot side of a slot move. Records are found by
// their routing key (SLOT_LOCATORS), page by page with a cursor, so no message carries more than
// about `maxBytes` (DESIGN.md §7: bounded stream messages). The receiving shard applies pages and
// oplog entries with `applySlotEntries`; the giving one drops the slot with `dropSlot`.
import { slotOf } from '../cluster/slots.js';
import { approxBytes, SLOT_LOCATORS } from './oplog.js';
import type { Key } from './keys.js';
import type { ShardStore } from './shard-store.js';

export interface SlotRecord {
  readonly db: string;
  readonly key: Key;
  readonly value?: unknown;
  readonly del?: true;
}

/** Where a snapshot stopped: the database index and the last key sent. */
export interface SlotCursor {
  readonly db: number;
  readonly after: Key | null;
}

/** Databases in snapshot order; webhook_keys last, derived from the webhooks sent. */
const SNAPSHOT_DBS = Object.keys(SLOT_LOCATORS);

function lookupIn(store: ShardStore) {
  return (db: string, key: Key) => store.oplog.database(db).get(key);
}

function sameKey(a: Key, b: Key): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One page of the slot's records from `cursor` (null: the start); `next` is null after the last page. */
export function readSlotPage(store: ShardStore, slot: number, cursor: SlotCursor | null, maxBytes: number): { records: SlotRecord[]; next: SlotCursor | null } {
  const records: SlotRecord[] = [];
  const lookup = lookupIn(store);
  let bytes = 0;
  for (let d = cursor?.db ?? 0; d < SNAPSHOT_DBS.length; d++) {
    const name = SNAPSHOT_DBS[d]!;
    const locate = SLOT_LOCATORS[name]!;
    const after = d === cursor?.db ? cursor.after : null;
    const range = after === null ? {} : { start: after };
    for (const { key, value } of store.oplog.database(name).getRange(range)) {
      if (after !== null && sameKey(key, after)) continue;
      const routing = locate(key, value, lookup);
      if (routing === null || routing === undefined || slotOf(routing) !== slot) continue;
      records.push({ db: name, key, value });
      bytes += approxBytes(value) + 64;
      if (bytes >= maxBytes) return { records, next: { db: d, after: key } };
    }
  }
  // The sealed keys of the accounts whose webhooks live in the slot: deliveries are signed with them.
  const keys = store.oplog.database('webhook_keys');
  const accounts = new Set<string>();
  for (const { value } of store.oplog.database('webhooks').getRange({})) {
    const w = value as { inbox: string; account_id: string };
    if (slotOf(w.inbox) === slot) accounts.add(w.account_id);
  }
  for (const account of accounts) {
    const sealed = keys.get(account);
    if (sealed !== undefined) records.push({ db: 'webhook_keys', key: account, value: sealed });
  }
  return { records, next: null };
}

function writeRecords(store: ShardStore, records: readonly SlotRecord[]): void {
  for (const r of records) {
    const db = store.oplog.database(r.db);
    if (r.del) db.remove(r.key);
    else db.put(r.key, r.db === 'raw' ? Buffer.from(r.value as Uint8Array) : r.value);
  }
}

/**
 * Applies records (snapshot pages or oplog entries) in order, in one transaction. `logged`: false
 * for a follower's copy, whose log holds the primary's entries, not its own.
 */
export function applySlotEntries(store: ShardStore, records: readonly SlotRecord[], logged = true): Promise<void> {
  return store.transaction(() => (logged ? writeRecords(store, records) : store.oplog.unlogged(() => writeRecords(store, records))));
}

/** Removes every record of the slot (after it moved away, or before a fresh copy), page by page. */
export async function dropSlot(store: ShardStore, slot: number, logged = true): Promise<number> {
  let removed = 0;
  for (;;) {
    const { records } = readSlotPage(store, slot, null, 4 * 1024 * 1024);
    const own = records.filter((r) => r.db !== 'webhook_keys');
    if (own.length === 0) return removed;
    // Indexes before the webhooks they point at, so their locators still resolve.
    own.sort((a, b) => (a.db === 'webhooks' ? 1 : 0) - (b.db === 'webhooks' ? 1 : 0));
    await applySlotEntries(store, own.map((r) => ({ db: r.db, key: r.key, del: true })), logged);
    removed += own.length;
  }
}

/** A replicated oplog entry as it travels from primary to follower. */
export interface ReplicatedEntry extends SlotRecord {
  readonly seq: number;
  readonly at: number;
}

/** The primary's entries of the slot after `after`, for a follower, up to about `maxBytes`. */
export function readReplicated(store: ShardStore, slot: number, after: number, maxBytes: number): ReplicatedEntry[] {
  return store.oplog.read(slot, after, maxBytes).map(({ seq, entry }) => ({ seq, db: entry.db, key: entry.key, value: entry.value, del: entry.del, at: entry.at }));
}

/**
 * The follower's side: the entries, in order, under the primary's sequence numbers, and the new
 * position, in one transaction. The caller has checked they follow the position it holds.
 */
export function applyReplicated(store: ShardStore, slot: number, epoch: number, entries: readonly ReplicatedEntry[]): Promise<void> {
  return store.transaction(() => {
    store.oplog.unlogged(() => writeRecords(store, entries));
    for (const e of entries) store.oplog.logReplicated(slot, e.seq, e.del ? { db: e.db, key: e.key, del: true, at: e.at } : { db: e.db, key: e.key, value: e.value, at: e.at });
    store.oplog.setPosition(slot, { epoch, seq: entries.at(-1)!.seq });
  });
}

/**
 * One page of a fresh follower copy, in one transaction (most slots are one page: one commit per
 * slot). The first page first clears whatever the shard held of the slot, its log included; every
 * page leaves the copy marked incomplete (-1) until the last one sets the primary's position.
 */
export async function applySnapshotPage(store: ShardStore, slot: number, epoch: number, records: readonly SlotRecord[], first: boolean, done: number | null): Promise<void> {
  if (first && readSlotPage(store, slot, null, 1).records.some((r) => r.db !== 'webhook_keys')) {
    await store.transaction(() => store.oplog.setPosition(slot, { epoch, seq: -1 }));
    await dropSlot(store, slot, false);
  }
  await store.transaction(() => {
    if (first) store.oplog.clearSlot(slot);
    store.oplog.unlogged(() => writeRecords(store, records));
    store.oplog.setPosition(slot, { epoch, seq: done ?? -1 });
  });
}
