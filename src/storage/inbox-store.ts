// Inboxes by address, and each account's inboxes on this shard. Key layouts (keys.ts): inboxes
// [slot(address), address] → record; inboxes_by_account [slot(address), account_id, address] → 1,
// found by account through the slot index; in creation order through the message index (pages).
// A deleted inbox whose messages are still being removed leaves a tombstone, inbox_tombstones
// [slot(address), address] → {account_id, at}, until the last of them is gone. The address itself
// stays with its last owner for a while (DESIGN §7 "Reserved addresses"): freed_addresses
// [slot(address), address] → {account_id, at}.
import type { Database, RootDatabase } from 'lmdb';
import type { InboxRecord } from '../contract/model.js';
import { batches, entryCount, inSlot, openDb, type Key } from './keys.js';
import { slotIndexOf, type SlotIndex } from './slot-index.js';
import { messageIndexOf, type MessageIndex } from './message-index.js';

export interface InboxTombstone {
  address: string;
  account_id: string;
  /** When the inbox was deleted (ms). */
  at: number;
}

/** Records kept by address, one per address: put, read, remove, list. */
export class AddressRecords {
  constructor(private readonly db: Database<InboxTombstone, Key>) {}

  /** Inside a transaction. */
  put(record: InboxTombstone): void {
    void this.db.put(inSlot(record.address, record.address), record);
  }

  get(address: string): InboxTombstone | undefined {
    return this.db.get(inSlot(address, address));
  }

  /** Inside a transaction. */
  remove(address: string): void {
    void this.db.remove(inSlot(address, address));
  }

  all(): InboxTombstone[] {
    return [...this.db.getRange({})].map(({ value }) => value);
  }
}

export class InboxStore {
  private readonly inboxes: Database<InboxRecord, Key>;
  private readonly byAccount: Database<number, Key>;
  private readonly index: SlotIndex;
  private readonly ordered: MessageIndex;
  /** Deleted inboxes whose messages are yet to go (every one is resumed after a restart or a slot's arrival). */
  readonly tombstones: AddressRecords;
  /** Who last held an address and when it was freed. */
  readonly freed: AddressRecords;

  constructor(root: RootDatabase) {
    this.inboxes = openDb<InboxRecord>(root, 'inboxes');
    this.byAccount = openDb<number>(root, 'inboxes_by_account');
    this.tombstones = new AddressRecords(openDb<InboxTombstone>(root, 'inbox_tombstones'));
    this.freed = new AddressRecords(openDb<InboxTombstone>(root, 'freed_addresses'));
    this.index = slotIndexOf(root);
    this.ordered = messageIndexOf(root);
  }

  get(address: string): InboxRecord | undefined {
    return this.inboxes.get(inSlot(address, address));
  }

  /** A new inbox and its place in the account's index. */
  create(record: InboxRecord): void {
    void this.inboxes.put(inSlot(record.address, record.address), record);
    void this.byAccount.put(inSlot(record.address, record.account_id, record.address), 1);
  }

  /** Counters changed; the address and owner never do. */
  update(record: InboxRecord): void {
    void this.inboxes.put(inSlot(record.address, record.address), record);
  }

  remove(accountId: string, address: string): void {
    void this.inboxes.remove(inSlot(address, address));
    void this.byAccount.remove(inSlot(address, accountId, address));
  }

  /** The account's inboxes on this shard with their slots. */
  slotsOf(accountId: string): { address: string; slot: number }[] {
    const out: { address: string; slot: number }[] = [];
    for (const { parts, slot } of this.index.entries('inboxes_by_account', [accountId])) out.push({ address: parts[1] as string, slot });
    return out;
  }

  /** Every inbox record on this shard, in pages read whole (the caller may write between them). */
  *pages(size: number): Generator<InboxRecord[]> {
    for (const batch of batches(this.inboxes, {}, size)) yield batch.map((r) => r.value);
  }

  addressesOf(accountId: string): string[] {
    const out: string[] = [];
    for (const { parts } of this.index.entries('inboxes_by_account', [accountId])) out.push(parts[1] as string);
    return out;
  }

  /**
   * Up to `limit` inbox records of the account on this shard, oldest first (then by address),
   * after the page boundary `after`: one index range read, however many inboxes the account has.
   */
  pageOf(accountId: string, after: { created_at: string; address: string } | null, limit: number): InboxRecord[] {
    const out: InboxRecord[] = [];
    for (const address of this.ordered.inboxesOf(accountId, after, limit)) {
      const inbox = this.get(address);
      if (inbox) out.push(inbox);
    }
    return out;
  }

  count(): number {
    return entryCount(this.inboxes);
  }
}
