// Inboxes by address, and each account's inboxes on this shard. Key layouts: inboxes address →
// record; inboxes_by_account [account_id, address] → 1.
import type { Database, RootDatabase } from 'lmdb';
import type { InboxRecord } from '../contract/model.js';
import { entryCount, keyParts, openDb, type Key } from './keys.js';

export class InboxStore {
  private readonly inboxes: Database<InboxRecord, string>;
  private readonly byAccount: Database<number, Key>;

  constructor(root: RootDatabase) {
    this.inboxes = openDb<InboxRecord, string>(root, 'inboxes');
    this.byAccount = openDb<number>(root, 'inboxes_by_account');
  }

  get(address: string): InboxRecord | undefined {
    return this.inboxes.get(address);
  }

  /** A new inbox and its place in the account's index. */
  create(record: InboxRecord): void {
    void this.inboxes.put(record.address, record);
    void this.byAccount.put([record.account_id, record.address], 1);
  }

  /** Counters changed; the address and owner never do. */
  update(record: InboxRecord): void {
    void this.inboxes.put(record.address, record);
  }

  remove(accountId: string, address: string): void {
    void this.inboxes.remove(address);
    void this.byAccount.remove([accountId, address]);
  }

  addressesOf(accountId: string): string[] {
    return keyParts(this.byAccount, [accountId], 1);
  }

  count(): number {
    return entryCount(this.inboxes);
  }
}
