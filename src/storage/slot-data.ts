// A slot's data as a stream of records: the snapshot side of a slot move or of a follower's first
// copy. Every slot-bound key starts with its slot (keys.ts), so a slot is one range per database,
// read page by page with a cursor so that no message carries more than about `maxBytes`
// (DESIGN.md §7: bounded stream messages). The receiving shard applies pages and oplog entries
// with `applySlotEntries`; the giving one drops the slot with `dropSlot`.
import { approxBytes } from './oplog.js';
import { BINARY_DATABASES, keyBatches, SLOT_DATABASES, slotRange, type Key } from './keys.js';
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

/** Records removed per transaction when a slot is dropped. */
const DROP_BATCH = 2000;

/** One page of the slot's records from `cursor` (null: the start); `next` is null after the last page. */
export function readSlotPage(store: ShardStore, slot: number, cursor: SlotCursor | null, maxBytes: number): { records: SlotRecord[]; next: SlotCursor | null } {
  const records: SlotRecord[] = [];
  const { start, end } = slotRange(slot);
  let bytes = 0;
  for (let d = cursor?.db ?? 0; d < SLOT_DATABASES.length; d++) {
    const name = SLOT_DATABASES[d]!;
    const after = d === cursor?.db ? cursor.after : null;
    const range = after === null ? { start, end } : { start: after, end, exclusiveStart: true };
    for (const { key, value } of store.oplog.database(name).getRange(range)) {
      records.push({ db: name, key, value });
      bytes += approxBytes(value) + 64;
      if (bytes >= maxBytes) return { records, next: { db: d, after: key } };
    }
  }
  // The sealed keys of the accounts whose webhooks live in the slot: deliveries are signed with them.
  const keys = store.oplog.database('webhook_keys');
  const accounts = new Set<string>();
  for (const { value } of store.oplog.database('webhooks').getRange({ start, end })) accounts.add((value as { account_id: string }).account_id);
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
    else db.put(r.key, BINARY_DATABASES.has(r.db) ? Buffer.from(r.value as Uint8Array) : r.value);
  }
}

/** True when this shard holds no record of the slot and has logged nothing for it. */
export function slotIsEmpty(store: ShardStore, slot: number): boolean {
  return store.oplog.seq(slot) === 0 && readSlotPage(store, slot, null, 1).records.length === 0;
}

/**
 * Applies records (snapshot pages or oplog entries) in order, in one transaction. `logged`: false
 * for a follower's copy, whose log holds the primary's entries, not its own.
 */
export function applySlotEntries(store: ShardStore, records: readonly SlotRecord[], logged = true): Promise<void> {
  return store.transaction(() => (logged ? writeRecords(store, records) : store.oplog.unlogged(() => writeRecords(store, records))));
}

/** Removes every record of the slot (after it moved away, or before a fresh copy), in transactions of at most DROP_BATCH records. */
export async function dropSlot(store: ShardStore, slot: number, logged = true): Promise<number> {
  let removed = 0;
  let batch: { db: string; key: Key }[] = [];
  const flush = async () => {
    const records = batch;
    batch = [];
    const remove = () => { for (const r of records) void store.oplog.database(r.db).remove(r.key); };
    await store.transaction(() => (logged ? remove() : store.oplog.unlogged(remove)));
    removed += records.length;
  };
  for (const name of SLOT_DATABASES) {
    for (const keys of keyBatches(store.oplog.database(name), slotRange(slot), DROP_BATCH)) {
      for (const key of keys) batch.push({ db: name, key });
      if (batch.length >= DROP_BATCH) await flush();
    }
  }
  if (batch.length > 0) await flush();
  return removed;
}

/** A replicated oplog entry as it travels from primary to follower. */
export interface ReplicatedEntry extends SlotRecord {
  readonly seq: number;
  readonly at: number;
  /** Shard-wide records the entry needs, written with it but not logged (a webhook's signing key). */
  readonly extra?: SlotRecord[];
}

/**
 * The primary's entries of the slot after `after`, for a follower, up to about `maxBytes`. A
 * webhook's entry carries its account's sealed signing key, so a follower promoted after a failover
 * signs (and so delivers) the slot's due notifications (DESIGN.md §8: everything travels with the slot).
 */
export function readReplicated(store: ShardStore, slot: number, after: number, maxBytes: number): ReplicatedEntry[] {
  const keys = store.oplog.database('webhook_keys');
  return store.oplog.read(slot, after, maxBytes).map(({ seq, entry }) => {
    const base = { seq, db: entry.db, key: entry.key, value: entry.value, del: entry.del, at: entry.at };
    if (entry.db !== 'webhooks' || entry.del || !entry.value) return base;
    const account = (entry.value as { account_id?: string }).account_id;
    const sealed = account === undefined ? undefined : keys.get(account);
    return sealed === undefined ? base : { ...base, extra: [{ db: 'webhook_keys', key: account!, value: sealed }] };
  });
}

/**
 * The follower's side: the entries, in order, under the primary's sequence numbers, and the new
 * position, in one transaction. The caller has checked they follow the position it holds.
 */
export function applyReplicated(store: ShardStore, slot: number, epoch: number, entries: readonly ReplicatedEntry[]): Promise<void> {
  return store.transaction(() => {
    store.oplog.unlogged(() => {
      writeRecords(store, entries);
      for (const e of entries) if (e.extra) writeRecords(store, e.extra);
    });
    for (const e of entries) store.oplog.logReplicated(slot, e.seq, e);
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
