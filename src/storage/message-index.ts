// Derived indexes that keep an inbox's reads flat as it grows (issue 37): its unread messages, its
// messages that carry a code or a link, and an account's inboxes in creation order. One shard-wide
// database, `message_index`, holds
//   ['u', address, message_id] → 1            unread messages (unread_only lists)
//   ['c', address, message_id] → 1            messages with an otp or a verification_link ('code' waits)
//   ['i', account_id, created_at, address] → slot   inboxes of an account, oldest first (GET /v1/inboxes pages)
// Like the slot index it is derived: every put and remove of `messages` and `inboxes` keeps it,
// whoever writes (a store, a slot move, replication), so it is neither in the oplog nor in a
// slot's snapshot. An env written before it existed gets it built once, in bounded transactions,
// when the store opens (`meta` records that it was built).
import type { Database, RootDatabase } from 'lmdb';
import type { InboxRecord, MessageRecord } from '../contract/model.js';
import { batches, slotOfKey, type Key } from './keys.js';

const BUILT_KEY = 'message_index';
const BUILT_VERSION = 1;
const BUILD_BATCH = 2000;
const UNREAD = 'u';
const CODED = 'c';
const INBOXES = 'i';

type Parts = (string | number)[];

const instances = new WeakMap<RootDatabase, MessageIndex>();

/** The derived message and inbox indexes of `root`. */
export function messageIndexOf(root: RootDatabase): MessageIndex {
  const found = instances.get(root);
  if (!found) throw new Error('open the shard store (openShardStore) before its stores');
  return found;
}

export class MessageIndex {
  readonly db: Database<number, Key>;

  constructor(root: RootDatabase) {
    this.db = root.openDB<number, Key>({ name: 'message_index' });
    instances.set(root, this);
  }

  /** Hooks put/remove of `messages` and `inboxes` so that the index changes with them. */
  attach<V>(name: string, target: Database<V, Key>): void {
    if (name !== 'messages' && name !== 'inboxes') return;
    const put = target.put.bind(target) as (...args: unknown[]) => unknown;
    const remove = target.remove.bind(target) as (...args: unknown[]) => unknown;
    const messages = name === 'messages';
    (target as unknown as { put: unknown }).put = (key: Key, value: V, ...rest: unknown[]) => {
      if (messages) this.message(key as Parts, value as MessageRecord);
      // An inbox's entry never changes (account, creation time and address are fixed): only its
      // first put writes it, not the counter updates of every delivery.
      else if (!target.doesExist(key)) this.inbox(key, value as InboxRecord);
      return put(key, value, ...rest);
    };
    (target as unknown as { remove: unknown }).remove = (key: Key, ...rest: unknown[]) => {
      const parts = key as Parts;
      if (messages) {
        void this.db.remove([UNREAD, parts[1]!, parts[2]!]);
        void this.db.remove([CODED, parts[1]!, parts[2]!]);
      } else {
        const old = target.get(key) as InboxRecord | undefined;
        if (old) void this.db.remove([INBOXES, old.account_id, old.created_at, old.address]);
      }
      return remove(key, ...rest);
    };
  }

  private message(key: Parts, m: MessageRecord): void {
    const address = key[1]!;
    const id = key[2]!;
    if (m.read) void this.db.remove([UNREAD, address, id]);
    else void this.db.put([UNREAD, address, id], 1);
    // A code never goes away from a stored message: only its first put needs the entry.
    if (m.otp !== null || m.verification_link !== null) void this.db.put([CODED, address, id], 1);
  }

  private inbox(key: Key, r: InboxRecord): void {
    void this.db.put([INBOXES, r.account_id, r.created_at, r.address], slotOfKey('inboxes', key));
  }

  /** Unread message ids of an inbox, newest first, older than `beforeId` when given. */
  *unread(address: string, beforeId: string | null): Generator<string> {
    yield* this.ids(UNREAD, address, beforeId, true);
  }

  /** Ids of an inbox's messages with a code or a link, oldest first, newer than `sinceId`. */
  *coded(address: string, sinceId: string): Generator<string> {
    yield* this.ids(CODED, address, sinceId, false);
  }

  private *ids(kind: string, address: string, from: string | null, newestFirst: boolean): Generator<string> {
    const lo = [kind, address];
    const hi = [kind, address, '\uffff'];
    const range = newestFirst
      ? { start: from === null ? hi : [kind, address, from], end: lo, reverse: true, exclusiveStart: from !== null }
      : { start: from === null ? lo : [kind, address, from], end: hi, exclusiveStart: from !== null };
    for (const key of this.db.getKeys(range)) yield (key as string[])[2]!;
  }

  /**
   * Up to `limit` of an account's inboxes on this shard, oldest first, after the inbox created at
   * `after.created_at` with address `after.address` (that order is stable: a page boundary).
   */
  inboxesOf(accountId: string, after: { created_at: string; address: string } | null, limit: number): string[] {
    const start = after ? [INBOXES, accountId, after.created_at, after.address] : [INBOXES, accountId];
    const out: string[] = [];
    for (const key of this.db.getKeys({ start, end: [INBOXES, accountId, '\uffff'], exclusiveStart: after !== null, limit })) {
      out.push((key as string[])[3]!);
    }
    return out;
  }

  /**
   * Builds the index of an env written before it existed, reading through the stores' own handles
   * (`database`: their records name shared structures); a no-op once built.
   */
  buildOnce(root: RootDatabase, database: (name: string) => Database<unknown, Key>): number {
    const meta = root.openDB<number, string>({ name: 'meta' });
    if (meta.get(BUILT_KEY) === BUILT_VERSION) return 0;
    let written = 0;
    for (const batch of batches(database('messages') as Database<MessageRecord, Key>, {}, BUILD_BATCH)) {
      root.transactionSync(() => { for (const { key, value } of batch) this.message(key as Parts, value); });
      written += batch.length;
    }
    for (const batch of batches(database('inboxes') as Database<InboxRecord, Key>, {}, BUILD_BATCH)) {
      root.transactionSync(() => { for (const { key, value } of batch) this.inbox(key, value); });
      written += batch.length;
    }
    meta.putSync(BUILT_KEY, BUILT_VERSION);
    return written;
  }
}
