// Inboxes by address, and each account's inboxes on this shard. Key layouts (keys.ts): inboxes
// [slot(address), address] → record; inboxes_by_account [slot(address), account_id, address] → 1,
// found by account through the slot index.
import type { Database, RootDatabase } from 'lmdb';
import type { InboxRecord } from '../contract/model.js';
import { entryCount, inSlot, openDb, slotIndexOf, type Key } from './keys.js';
import type { SlotIndex } from './slot-index.js';

export class InboxStore {
  private readonly inboxes: Database<InboxRecord, Key>;
  private readonly byAccount: Database<number, Key>;
  private readonly index: SlotIndex;

  constructor(root: RootDatabase) {
    this.inboxes = openDb<InboxRecord>(root, 'inboxes');
    this.byAccount = openDb<number>(root, 'inboxes_by_account');
    this.index = slotIndexOf(root);
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

  addressesOf(accountId: string): string[] {
    const out: string[] = [];
    for (const { parts } of this.index.entries('inboxes_by_account', [accountId])) out.push(parts[1] as string);
    return out;
  }

  count(): number {
    return entryCount(this.inboxes);
  }
}
