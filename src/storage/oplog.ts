// The per-slot operation log (DESIGN.md §8 "Storage"): every put and remove on a slot-bound
// database also appends {db, key, value} under [slot, seq] in the same transaction, so a slot can
// be copied as a snapshot plus the entries written since (slot moves, replication). The slot is
// the first element of every slot-bound key (keys.ts); shard-wide databases are not logged.
// A raw source is logged without its bytes: it is written once under a key never used again, so
// the log reads them from the database when it hands the entry on. A 100 KB mail thus writes its
// source once, not twice (CPU per 100 KB delivery to a shard: 578-744 → 423-561 µs).
import type { Database, RootDatabase } from 'lmdb';
import { SLOT_COUNT } from '../cluster/slots.js';
import { isSlotBound, slotOfKey, type Key } from './keys.js';
import { sharedStructures } from './record-structures.js';

/** Entries are kept this long after they are written, then trimmed (where followers may need them: a cluster). */
export const OPLOG_RETENTION_MS = 60 * 60 * 1000;
/** How often the log is trimmed: a short retention (embedded mode, where nothing reads the log) trims often. */
const TRIM_INTERVAL_MS = 60 * 1000;
const SHORT_TRIM_INTERVAL_MS = 5 * 1000;
/** Entries removed per event turn while trimming: a trim never holds the shard's thread for long. */
const TRIM_BATCH = 2000;
/** Above any sequence number (they are uint32 per slot). */
const MAX_SEQ = 2 ** 32;

export interface OplogEntry {
  readonly db: string;
  readonly key: Key;
  /** Absent for a removal, and for a put logged by key (`byKey`). */
  readonly value?: unknown;
  readonly del?: true;
  /** A put whose value is the database's under `key`: read() fills it in. */
  readonly byKey?: true;
  readonly at: number;
}

/** Databases whose records are written once and never rewritten under the same key: logged by key. */
const WRITTEN_ONCE = new Set(['raw_shared', 'attachments']);

/** The entry that logs a put: the value itself, or only its key for a record written once. */
function putEntry(db: string, key: Key, value: unknown, at: number): OplogEntry {
  return WRITTEN_ONCE.has(db) ? { db, key, byKey: true, at } : { db, key, value, at };
}

/** Where a follower's copy of a slot stands: the primary's epoch it copied from and the last entry applied. */
export interface ReplicaPosition {
  readonly epoch: number;
  /** -1 while a snapshot is still arriving: the copy is incomplete. */
  readonly seq: number;
}

export class Oplog {
  private readonly seqs = new Uint32Array(SLOT_COUNT);
  /** Follower copies of slots (replication, DESIGN.md §8): slot -> ReplicaPosition. */
  private readonly positions: Database<ReplicaPosition, number>;
  /** Where the slot's current epoch began on this shard as its primary (leader-epoch truncation, KIP-101). */
  private readonly leaderEpochs: Database<{ epoch: number; start: number; prev: number }, number>;
  /** True while replicated records are written: they carry their own entries, the hooks log nothing. */
  private replaying = false;
  /** Called for each entry logged, inside its write transaction (the primary's replication). */
  onAppend: ((slot: number, seq: number) => void) | null = null;
  private readonly trimmer: NodeJS.Timeout;
  private trimming: Promise<number> | null = null;
  private closed = false;
  private readonly dbs = new Map<string, Database<unknown, Key>>();
  readonly db: Database<OplogEntry, Key>;

  /** `retentionMs`: how long entries are kept (0: only each slot's newest, which keeps its sequence number). */
  constructor(root: RootDatabase, private readonly now: () => number = Date.now, private readonly retentionMs = OPLOG_RETENTION_MS) {
    this.db = root.openDB<OplogEntry, Key>({ name: 'oplog', ...sharedStructures(root, 'oplog') });
    this.positions = root.openDB<ReplicaPosition, number>({ name: 'replica_positions' });
    this.leaderEpochs = root.openDB({ name: 'leader_epochs' });
    for (let slot = 0; slot < SLOT_COUNT; slot++) {
      for (const key of this.db.getKeys({ start: [slot, MAX_SEQ], end: [slot], reverse: true, limit: 1 })) this.seqs[slot] = (key as number[])[1]!;
      // A snapshot leaves no entries behind: the position remembers where it stopped.
      const position = this.positions.get(slot);
      if (position && position.seq > this.seqs[slot]!) this.seqs[slot] = position.seq;
    }
    this.trimmer = setInterval(() => void this.trim().catch(() => 0), retentionMs < TRIM_INTERVAL_MS ? SHORT_TRIM_INTERVAL_MS : TRIM_INTERVAL_MS);
    this.trimmer.unref();
  }

  /** The last sequence number written for the slot (0: none yet). */
  seq(slot: number): number {
    return this.seqs[slot]!;
  }

  /** Hooks put/remove of a database so that each write of a slot-bound record is logged with it. */
  attach<V>(name: string, target: Database<V, Key>): void {
    this.dbs.set(name, target as Database<unknown, Key>);
    if (!isSlotBound(name)) return;
    const put = target.put.bind(target) as (...args: unknown[]) => unknown;
    const remove = target.remove.bind(target) as (...args: unknown[]) => unknown;
    (target as unknown as { put: unknown }).put = (key: Key, value: V, ...rest: unknown[]) => {
      const slot = slotOfKey(name, key);
      if (!this.replaying) this.append(slot, putEntry(name, key, value, this.now()));
      return put(key, value, ...rest);
    };
    (target as unknown as { remove: unknown }).remove = (key: Key, ...rest: unknown[]) => {
      const slot = slotOfKey(name, key);
      // doesExist: a removed outbox entry or message is not decoded just to learn it was there.
      if (!this.replaying && target.doesExist(key)) this.append(slot, { db: name, key, del: true, at: this.now() });
      return remove(key, ...rest);
    };
  }

  private append(slot: number, entry: OplogEntry): void {
    const seq = ++this.seqs[slot]!;
    void this.db.put([slot, seq], entry);
    this.onAppend?.(slot, seq);
  }

  /** Runs `write` with the hooks off: what it writes is logged by the caller, or not at all (a snapshot). */
  unlogged<T>(write: () => T): T {
    this.replaying = true;
    try {
      return write();
    } finally {
      this.replaying = false;
    }
  }

  /**
   * Inside a transaction, after the record is written: logs a replicated put or removal under the
   * primary's sequence number (a record written once, by its key, as here).
   */
  logReplicated(slot: number, seq: number, entry: { db: string; key: Key; value?: unknown; del?: true; at: number }): void {
    void this.db.put([slot, seq], entry.del ? { db: entry.db, key: entry.key, del: true, at: entry.at } : putEntry(entry.db, entry.key, entry.value, entry.at));
    this.seqs[slot] = seq;
  }

  /** True when every entry after `seq` is still in the log (the tail can be sent instead of a snapshot). */
  covers(slot: number, seq: number): boolean {
    if (seq === this.seqs[slot]) return true;
    if (seq > this.seqs[slot]!) return false;
    for (const key of this.db.getKeys({ start: [slot, seq + 1], end: [slot, MAX_SEQ], limit: 1 })) return (key as number[])[1] === seq + 1;
    return false;
  }

  position(slot: number): ReplicaPosition | undefined {
    return this.positions.get(slot);
  }

  /** Inside a transaction: where this shard's follower copy of the slot stands. */
  setPosition(slot: number, position: ReplicaPosition): void {
    void this.positions.put(slot, position);
    if (position.seq >= 0) this.seqs[slot] = position.seq;
  }

  /** The copy became the primary (its log goes on from its position), or was dropped. */
  clearPosition(slot: number): Promise<boolean> {
    return this.positions.remove(slot);
  }

  leaderEpoch(slot: number): { epoch: number; start: number; prev: number } | undefined {
    return this.leaderEpochs.get(slot);
  }

  /** Inside a transaction: this shard became the slot's primary at `epoch`, its log then ending at `start`. */
  setLeaderEpoch(slot: number, value: { epoch: number; start: number; prev: number }): void {
    void this.leaderEpochs.put(slot, value);
  }

  /** Slots this shard holds a follower copy of. */
  replicaSlots(): number[] {
    return [...this.positions.getKeys()] as number[];
  }

  /** Inside a transaction: forgets the slot's entries (a new copy is about to replace the slot). */
  clearSlot(slot: number): void {
    for (const key of this.db.getKeys({ start: [slot, 0], end: [slot, MAX_SEQ] })) void this.db.remove(key);
    this.seqs[slot] = 0;
  }

  /** A database the stores opened, by name (slot snapshots read and write records generically). */
  database(name: string): Database<unknown, Key> {
    const db = this.dbs.get(name);
    if (!db) throw new Error(`no database ${name}`);
    return db;
  }

  /**
   * Entries of the slot after `after`, in order, up to about `maxBytes`, each with its value. A
   * record logged by key that is gone was removed by a later entry: its put reads as a removal.
   */
  read(slot: number, after: number, maxBytes: number): { seq: number; entry: OplogEntry }[] {
    const out: { seq: number; entry: OplogEntry }[] = [];
    let bytes = 0;
    for (const { key, value } of this.db.getRange({ start: [slot, after + 1], end: [slot, MAX_SEQ] })) {
      const entry = value.byKey ? this.withValue(value) : value;
      out.push({ seq: (key as number[])[1]!, entry });
      bytes += approxBytes(entry.value) + 64;
      if (bytes >= maxBytes) break;
    }
    return out;
  }

  private withValue({ db, key, at }: OplogEntry): OplogEntry {
    const value = this.database(db).get(key);
    return value === undefined ? { db, key, del: true, at } : { db, key, value, at };
  }

  /**
   * Removes the entries older than the retention, except each slot's newest (the slot's sequence
   * number survives a restart), in transactions of at most TRIM_BATCH removals, one per event turn
   * at most, so a trim never holds the shard's thread for long. Resolves with the number removed.
   */
  trim(): Promise<number> {
    // One trim at a time: a call during the timer's trim waits for that one.
    this.trimming ??= this.trimOnce().finally(() => (this.trimming = null));
    return this.trimming;
  }

  private async trimOnce(): Promise<number> {
    let removed = 0;
    let keys: Key[] = [];
    const flush = async () => {
      const run = keys;
      keys = [];
      await this.db.transaction(() => { for (const key of run) void this.db.remove(key); });
      removed += run.length;
    };
    // Slot by slot, each found by seeking to the next key: slots without entries cost nothing.
    for (let at = 0; at < SLOT_COUNT && !this.closed; at++) {
      const first = this.firstKey(at);
      if (first === null) break;
      const [slot, seq] = first;
      at = slot;
      const end = this.trimEnd(slot, seq);
      if (end === null) continue;
      for (const key of this.db.getKeys({ start: [slot, seq], end: [slot, end] })) {
        keys.push(key);
        if (keys.length >= TRIM_BATCH) await flush();
      }
    }
    if (keys.length > 0) await flush();
    return removed;
  }

  /**
   * The slot's first entry to keep, or null when there is nothing to trim. Found by the entries'
   * times with a binary search over their sequence numbers, so a trim decodes a few entries per
   * slot, not each one it removes: an entry holds its whole record, a multi-MB message's text
   * among them, and decoding every one held the shard's thread (issue 33: 100+ ms at a time beside
   * a hostile sender). Times follow sequence numbers but for clock steps; a step back only moves
   * the cut by the entries written meanwhile.
   */
  private trimEnd(slot: number, first: number): number | null {
    const newest = this.seqs[slot]!;
    if (first >= newest) return null;
    // The newest entry always stays: the slot's sequence number survives a restart.
    if (this.retentionMs <= 0) return newest;
    const cutoff = this.now() - this.retentionMs;
    let lo = first;
    let hi = newest;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const entry = this.atOrAfter(slot, mid);
      if (entry === null || entry.at > cutoff) hi = mid;
      else lo = entry.seq + 1;
    }
    return lo > first ? lo : null;
  }

  /** The first key of the log at slot `slot` or after it, or null. */
  private firstKey(slot: number): [number, number] | null {
    for (const key of this.db.getKeys({ start: [slot, 0], limit: 1 })) return key as [number, number];
    return null;
  }

  /** The slot's first entry at `seq` or after it (the log may have gaps), or null. */
  private atOrAfter(slot: number, seq: number): { seq: number; at: number } | null {
    for (const { key, value } of this.db.getRange({ start: [slot, seq], end: [slot, MAX_SEQ], limit: 1 })) return { seq: (key as number[])[1]!, at: value.at };
    return null;
  }

  /** Stops trimming; resolves once a trim in progress has stopped (before the env closes under it). */
  close(): Promise<void> {
    clearInterval(this.trimmer);
    this.closed = true;
    return (this.trimming ?? Promise.resolve(0)).then(() => undefined, () => undefined);
  }
}

export function approxBytes(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value === 'number' || typeof value === 'boolean') return 8;
  return JSON.stringify(value)?.length ?? 0;
}
