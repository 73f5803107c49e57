// What an inbox holds, as storage governance counts it (DESIGN §7 "Storage is governed"). Every
// inbox record carries its message count and bytes, changed in the same transaction as its
// messages (deliver, delete, retention), so the figures are exact and replicate with the slot's
// oplog; an account's usage is the sum over its inboxes, per slot on each shard, summed by the front.
import type { PlanName } from '../config/plans.js';
import type { InboxRecord, MessageRecord } from '../contract/model.js';
import type { StorageUsage } from '../contract/results.js';
import type { ShardStore } from '../storage/shard-store.js';

/** Records changed per transaction when a plan change reaches an account's inboxes. */
const PLAN_BATCH = 500;

/** What the SMTP ingress checks at RCPT: the owner and how full the inbox is; null: no such inbox. */
export function quotaOf(inbox: InboxRecord | undefined): { account_id: string; messages: number; bytes: number } | null {
  return inbox ? { account_id: inbox.account_id, messages: inbox.message_count, bytes: inbox.bytes ?? 0 } : null;
}

/** The inbox's counters once `messages` are gone from it. */
export function withoutMessages(inbox: InboxRecord, messages: readonly Pick<MessageRecord, 'read' | 'size'>[]): InboxRecord {
  let unread = 0;
  let bytes = 0;
  for (const m of messages) {
    if (!m.read) unread++;
    bytes += m.size ?? 0;
  }
  return {
    ...inbox,
    message_count: Math.max(0, inbox.message_count - messages.length),
    unread_count: Math.max(0, inbox.unread_count - unread),
    bytes: Math.max(0, (inbox.bytes ?? 0) - bytes),
  };
}

/** The account's storage on this shard, one row per slot that holds some of its inboxes. */
export function usageBySlot(store: ShardStore, accountId: string): (StorageUsage & { slot: number })[] {
  const rows = new Map<number, StorageUsage & { slot: number }>();
  for (const { address, slot } of store.inboxes.slotsOf(accountId)) {
    const inbox = store.inboxes.get(address);
    if (!inbox) continue;
    let row = rows.get(slot);
    if (!row) rows.set(slot, (row = { slot, inboxes: 0, messages: 0, bytes: 0 }));
    row.inboxes++;
    row.messages += inbox.message_count;
    row.bytes += inbox.bytes ?? 0;
  }
  return [...rows.values()];
}

/** The account's inboxes on this shard take its new plan (their retention follows it). */
export async function setPlan(store: ShardStore, accountId: string, plan: PlanName): Promise<number> {
  const addresses = store.inboxes.addressesOf(accountId);
  for (let i = 0; i < addresses.length; i += PLAN_BATCH) {
    await store.transaction(() => {
      for (const address of addresses.slice(i, i + PLAN_BATCH)) {
        const inbox = store.inboxes.get(address);
        if (inbox && inbox.plan !== plan) store.inboxes.update({ ...inbox, plan });
      }
    });
  }
  return addresses.length;
}
