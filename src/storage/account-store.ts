// Accounts by id, and the custom-domain and inbox slots each account holds (counted atomically on
// the account's shard). Key layouts (keys.ts): accounts [slot(id), id] → record; account_domains
// [slot(account_id), account_id, domain] → 1; account_inboxes [slot(account_id), account_id, address] → 1.
import type { Database, RootDatabase } from 'lmdb';
import type { AccountRecord } from '../contract/model.js';
import { inSlot, keyParts, openDb, prefixRange, type Key } from './keys.js';

export class AccountStore {
  private readonly accounts: Database<AccountRecord, Key>;
  private readonly slots: Database<number, Key>;
  private readonly inboxSlots: Database<number, Key>;

  constructor(root: RootDatabase) {
    this.accounts = openDb<AccountRecord>(root, 'accounts');
    this.slots = openDb<number>(root, 'account_domains');
    this.inboxSlots = openDb<number>(root, 'account_inboxes');
  }

  get(id: string): AccountRecord | undefined {
    return this.accounts.get(inSlot(id, id));
  }

  put(record: AccountRecord): Promise<boolean> {
    return this.accounts.put(inSlot(record.id, record.id), record);
  }

  holdsDomain(accountId: string, domain: string): boolean {
    return this.slots.get(inSlot(accountId, accountId, domain)) !== undefined;
  }

  domainCount(accountId: string): number {
    return this.slots.getKeysCount(prefixRange(inSlot(accountId, accountId)));
  }

  holdDomain(accountId: string, domain: string): void {
    void this.slots.put(inSlot(accountId, accountId, domain), 1);
  }

  releaseDomain(accountId: string, domain: string): void {
    void this.slots.remove(inSlot(accountId, accountId, domain));
  }

  holdsInbox(accountId: string, address: string): boolean {
    return this.inboxSlots.get(inSlot(accountId, accountId, address)) !== undefined;
  }

  inboxCount(accountId: string): number {
    return this.inboxSlots.getKeysCount(prefixRange(inSlot(accountId, accountId)));
  }

  heldInboxes(accountId: string): string[] {
    return keyParts(this.inboxSlots, inSlot(accountId, accountId), 2);
  }

  holdInbox(accountId: string, address: string): void {
    void this.inboxSlots.put(inSlot(accountId, accountId, address), 1);
  }

  releaseInbox(accountId: string, address: string): void {
    void this.inboxSlots.remove(inSlot(accountId, accountId, address));
  }
}
