// Webhooks by id with their inbox and account indexes, the sealed API key each account signs
// with, and the delivery log of each webhook. A webhook and everything about it lives in its
// inbox's slot; an id or an account finds its slot through the slot index. Key layouts (keys.ts):
// webhooks [slot, id] → record; webhooks_by_inbox [slot, inbox, id] → 1; webhooks_by_account
// [slot, account_id, id] → 1; webhook_deliveries [slot, id, at_ms, event_id, attempt] → log entry;
// webhook_keys account_id → sealed key (shard-wide: not slot-bound, a slot's snapshot carries the
// keys of the accounts whose webhooks it holds).
import type { Database, RootDatabase } from 'lmdb';
import type { DeliveryLog, WebhookRecord } from '../contract/model.js';
import { inSlot, keyParts, openDb, prefixRange, type Key } from './keys.js';
import { slotIndexOf, type SlotIndex } from './slot-index.js';

/**
 * A log is trimmed once every this many entries written to it, not at each: a trim walks past the
 * `keep` newest keys, about a sixth of what a log write cost (53-62 → 43-53 µs with 100 kept).
 * A log thus holds at most `keep` + TRIM_EVERY - 1 entries; readers ask for the newest `keep`.
 */
const TRIM_EVERY = 32;

export class WebhookStore {
  /** Entries written to each webhook's log since this process last trimmed it. */
  private readonly untrimmed = new Map<string, number>();
  private readonly webhooks: Database<WebhookRecord, Key>;
  private readonly byInbox: Database<number, Key>;
  private readonly byAccount: Database<number, Key>;
  private readonly keys: Database<Uint8Array, string>;
  private readonly log: Database<DeliveryLog, Key>;
  private readonly index: SlotIndex;

  constructor(root: RootDatabase) {
    this.webhooks = openDb<WebhookRecord>(root, 'webhooks');
    this.byInbox = openDb<number>(root, 'webhooks_by_inbox');
    this.byAccount = openDb<number>(root, 'webhooks_by_account');
    this.keys = openDb<Uint8Array, string>(root, 'webhook_keys');
    this.log = openDb<DeliveryLog>(root, 'webhook_deliveries');
    this.index = slotIndexOf(root);
  }

  /** The slot of a webhook this shard holds. */
  slotOf(id: string): number | undefined {
    return this.index.slot('webhooks', [id]);
  }

  /** `slot`, when the caller knows it (its inbox's, or its outbox entry's), saves a lookup. */
  get(id: string, slot = this.slotOf(id)): WebhookRecord | undefined {
    return slot === undefined ? undefined : this.webhooks.get([slot, id]);
  }

  create(webhook: WebhookRecord): void {
    void this.webhooks.put(inSlot(webhook.inbox, webhook.id), webhook);
    void this.byInbox.put(inSlot(webhook.inbox, webhook.inbox, webhook.id), 1);
    void this.byAccount.put(inSlot(webhook.inbox, webhook.account_id, webhook.id), 1);
  }

  update(webhook: WebhookRecord): void {
    void this.webhooks.put(inSlot(webhook.inbox, webhook.id), webhook);
  }

  /** The webhook, its index entries and its delivery log. */
  remove(webhook: WebhookRecord): void {
    void this.webhooks.remove(inSlot(webhook.inbox, webhook.id));
    void this.byInbox.remove(inSlot(webhook.inbox, webhook.inbox, webhook.id));
    void this.byAccount.remove(inSlot(webhook.inbox, webhook.account_id, webhook.id));
    for (const key of this.log.getKeys(prefixRange(inSlot(webhook.inbox, webhook.id)))) void this.log.remove(key);
    this.untrimmed.delete(webhook.id);
  }

  idsForInbox(inbox: string): string[] {
    return keyParts(this.byInbox, inSlot(inbox, inbox), 2);
  }

  idsForAccount(accountId: string): string[] {
    const out: string[] = [];
    for (const { parts } of this.index.entries('webhooks_by_account', [accountId])) out.push(parts[1] as string);
    return out;
  }

  /** Every inbox that has a webhook on this shard. */
  watchedInboxes(): Set<string> {
    const out = new Set<string>();
    for (const key of this.byInbox.getKeys({})) out.add((key as string[])[1]!);
    return out;
  }

  sealedKey(accountId: string): Uint8Array | undefined {
    return this.keys.get(accountId);
  }

  putSealedKey(accountId: string, sealed: Uint8Array): Promise<boolean> {
    return this.keys.put(accountId, sealed);
  }

  /**
   * Appends to the log of a webhook this shard holds (in `slot` when the caller knows it); every
   * TRIM_EVERY entries (and at the first after a start) it drops all but the newest `keep`.
   */
  logDelivery(webhookId: string, atMs: number, eventId: string, attempt: number, entry: DeliveryLog, keep: number, slot = this.slotOf(webhookId)): void {
    if (slot === undefined) return;
    void this.log.put([slot, webhookId, atMs, eventId, attempt], entry);
    const written = this.untrimmed.get(webhookId);
    if (written !== undefined && written + 1 < TRIM_EVERY) {
      this.untrimmed.set(webhookId, written + 1);
      return;
    }
    this.untrimmed.set(webhookId, 0);
    // Only what lies beyond the newest `keep` is read: the cursor skips those without decoding them.
    const { start, end } = prefixRange([slot, webhookId]);
    for (const key of this.log.getKeys({ start: end, end: start, reverse: true, offset: keep })) void this.log.remove(key);
  }

  /** The webhook's newest log entries first. */
  deliveries(webhookId: string, limit: number): DeliveryLog[] {
    const slot = this.slotOf(webhookId);
    if (slot === undefined) return [];
    const { start, end } = prefixRange([slot, webhookId]);
    const out: DeliveryLog[] = [];
    for (const { value } of this.log.getRange({ start: end, end: start, reverse: true, limit })) out.push(value);
    return out;
  }
}
