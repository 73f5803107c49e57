// Webhooks by id with their inbox and account indexes, the sealed API key each account signs
// with, and the delivery log of each webhook. Key layouts: webhooks id → record;
// webhooks_by_inbox [inbox, id] → 1; webhooks_by_account [account_id, id] → 1; webhook_keys
// account_id → sealed key; webhook_deliveries [id, at_ms, event_id, attempt] → log entry.
import type { Database, RootDatabase } from 'lmdb';
import type { DeliveryLog, WebhookRecord } from '../contract/model.js';
import { keyParts, openDb, prefixRange, type Key } from './keys.js';

export class WebhookStore {
  private readonly webhooks: Database<WebhookRecord, string>;
  private readonly byInbox: Database<number, Key>;
  private readonly byAccount: Database<number, Key>;
  private readonly keys: Database<Uint8Array, string>;
  private readonly log: Database<DeliveryLog, Key>;

  constructor(root: RootDatabase) {
    this.webhooks = openDb<WebhookRecord, string>(root, 'webhooks');
    this.byInbox = openDb<number>(root, 'webhooks_by_inbox');
    this.byAccount = openDb<number>(root, 'webhooks_by_account');
    this.keys = openDb<Uint8Array, string>(root, 'webhook_keys');
    this.log = openDb<DeliveryLog>(root, 'webhook_deliveries');
  }

  get(id: string): WebhookRecord | undefined {
    return this.webhooks.get(id);
  }

  create(webhook: WebhookRecord): void {
    void this.webhooks.put(webhook.id, webhook);
    void this.byInbox.put([webhook.inbox, webhook.id], 1);
    void this.byAccount.put([webhook.account_id, webhook.id], 1);
  }

  update(webhook: WebhookRecord): void {
    void this.webhooks.put(webhook.id, webhook);
  }

  /** The webhook, its index entries and its delivery log. */
  remove(webhook: WebhookRecord): void {
    void this.webhooks.remove(webhook.id);
    void this.byInbox.remove([webhook.inbox, webhook.id]);
    void this.byAccount.remove([webhook.account_id, webhook.id]);
    for (const key of this.log.getKeys(prefixRange([webhook.id]))) void this.log.remove(key);
  }

  idsForInbox(inbox: string): string[] {
    return keyParts(this.byInbox, [inbox], 1);
  }

  idsForAccount(accountId: string): string[] {
    return keyParts(this.byAccount, [accountId], 1);
  }

  /** Every inbox that has a webhook on this shard. */
  watchedInboxes(): Set<string> {
    const out = new Set<string>();
    for (const key of this.byInbox.getKeys({})) out.add((key as string[])[0]!);
    return out;
  }

  sealedKey(accountId: string): Uint8Array | undefined {
    return this.keys.get(accountId);
  }

  putSealedKey(accountId: string, sealed: Uint8Array): Promise<boolean> {
    return this.keys.put(accountId, sealed);
  }

  /** Appends to the webhook's log and keeps only its newest `keep` entries. */
  logDelivery(webhookId: string, atMs: number, eventId: string, attempt: number, entry: DeliveryLog, keep: number): void {
    void this.log.put([webhookId, atMs, eventId, attempt], entry);
    let n = 0;
    const { start, end } = prefixRange([webhookId]);
    for (const key of this.log.getKeys({ start: end, end: start, reverse: true })) {
      if (++n > keep) void this.log.remove(key);
    }
  }

  /** The webhook's newest log entries first. */
  deliveries(webhookId: string, limit: number): DeliveryLog[] {
    const { start, end } = prefixRange([webhookId]);
    const out: DeliveryLog[] = [];
    for (const { value } of this.log.getRange({ start: end, end: start, reverse: true, limit })) out.push(value);
    return out;
  }
}
