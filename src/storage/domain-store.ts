// Custom-domain claims, one per (domain, account), and each account's domains on this shard. Key
// layouts (keys.ts): domains [slot(domain), domain, account_id] → record; domains_by_account
// [slot(domain), account_id, domain] → 1, found by account through the slot index.
import type { Database, RootDatabase } from 'lmdb';
import type { DomainRecord } from '../contract/model.js';
import { inSlot, openDb, prefixRange, type Key } from './keys.js';
import { slotIndexOf, type SlotIndex } from './slot-index.js';

export class DomainStore {
  private readonly domains: Database<DomainRecord, Key>;
  private readonly byAccount: Database<number, Key>;
  private readonly index: SlotIndex;

  constructor(root: RootDatabase) {
    this.domains = openDb<DomainRecord>(root, 'domains');
    this.byAccount = openDb<number>(root, 'domains_by_account');
    this.index = slotIndexOf(root);
  }

  get(domain: string, accountId: string): DomainRecord | undefined {
    return this.domains.get(inSlot(domain, domain, accountId));
  }

  /** Every account's claim on the domain. */
  *claims(domain: string): Generator<DomainRecord> {
    for (const { value } of this.domains.getRange(prefixRange(inSlot(domain, domain)))) yield value;
  }

  create(record: DomainRecord): void {
    void this.domains.put(inSlot(record.domain, record.domain, record.account_id), record);
    void this.byAccount.put(inSlot(record.domain, record.account_id, record.domain), 1);
  }

  update(record: DomainRecord): void {
    void this.domains.put(inSlot(record.domain, record.domain, record.account_id), record);
  }

  remove(record: DomainRecord): void {
    void this.domains.remove(inSlot(record.domain, record.domain, record.account_id));
    void this.byAccount.remove(inSlot(record.domain, record.account_id, record.domain));
  }

  domainsOf(accountId: string): string[] {
    const out: string[] = [];
    for (const { parts } of this.index.entries('domains_by_account', [accountId])) out.push(parts[1] as string);
    return out;
  }
}
