// Custom-domain claims, one per (domain, account), and each account's domains on this shard.
// Key layouts: domains [domain, account_id] → record; domains_by_account [account_id, domain] → 1.
import type { Database, RootDatabase } from 'lmdb';
import type { DomainRecord } from '../contract/model.js';
import { keyParts, openDb, prefixRange, type Key } from './keys.js';

export class DomainStore {
  private readonly domains: Database<DomainRecord, Key>;
  private readonly byAccount: Database<number, Key>;

  constructor(root: RootDatabase) {
    this.domains = openDb<DomainRecord>(root, 'domains');
    this.byAccount = openDb<number>(root, 'domains_by_account');
  }

  get(domain: string, accountId: string): DomainRecord | undefined {
    return this.domains.get([domain, accountId]);
  }

  /** Every account's claim on the domain. */
  *claims(domain: string): Generator<DomainRecord> {
    for (const { value } of this.domains.getRange(prefixRange([domain]))) yield value;
  }

  create(record: DomainRecord): void {
    void this.domains.put([record.domain, record.account_id], record);
    void this.byAccount.put([record.account_id, record.domain], 1);
  }

  update(record: DomainRecord): void {
    void this.domains.put([record.domain, record.account_id], record);
  }

  remove(record: DomainRecord): void {
    void this.domains.remove([record.domain, record.account_id]);
    void this.byAccount.remove([record.account_id, record.domain]);
  }

  domainsOf(accountId: string): string[] {
    return keyParts(this.byAccount, [accountId], 1);
  }
}
