// Accounts by id, and the custom-domain slots each account holds (counted atomically on the
// account's shard). Key layouts: accounts id → record; account_domains [account_id, domain] → 1.
import type { Database, RootDatabase } from 'lmdb';
import type { AccountRecord } from '../contract/model.js';
import { openDb, prefixRange, type Key } from './keys.js';

export class AccountStore {
  private readonly accounts: Database<AccountRecord, string>;
  private readonly slots: Database<number, Key>;

  constructor(root: RootDatabase) {
    this.accounts = openDb<AccountRecord, string>(root, 'accounts');
    this.slots = openDb<number>(root, 'account_domains');
  }

  get(id: string): AccountRecord | undefined {
    return this.accounts.get(id);
  }

  put(record: AccountRecord): Promise<boolean> {
    return this.accounts.put(record.id, record);
  }

  holdsDomain(accountId: string, domain: string): boolean {
    return this.slots.get([accountId, domain]) !== undefined;
  }

  domainCount(accountId: string): number {
    return this.slots.getKeysCount(prefixRange([accountId]));
  }

  holdDomain(accountId: string, domain: string): void {
    void this.slots.put([accountId, domain], 1);
  }

  releaseDomain(accountId: string, domain: string): void {
    void this.slots.remove([accountId, domain]);
  }
}
