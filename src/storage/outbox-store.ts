// Pending webhook notifications, ordered by when they are due. An entry commits in the same
// transaction as the message it announces, so a restart resumes it. It lives in its webhook's slot
// (so it moves with it); the slot index keeps every entry of the shard in due order. Key layout
// (keys.ts): outbox [slot, due_ms, event_id] → entry.
import type { Database, RootDatabase } from 'lmdb';
import { openDb, slotIndexOf, type Key } from './keys.js';
import type { SlotIndex } from './slot-index.js';

export interface OutboxEntry {
  event_id: string;
  webhook_id: string;
  body: string;
  /** Attempts made so far. */
  attempt: number;
}

export class OutboxStore {
  private readonly outbox: Database<OutboxEntry, Key>;
  private readonly index: SlotIndex;

  constructor(root: RootDatabase) {
    this.outbox = openDb<OutboxEntry>(root, 'outbox');
    this.index = slotIndexOf(root);
  }

  /** Inside a transaction: an entry of a webhook this shard holds. */
  put(dueMs: number, entry: OutboxEntry): void {
    const slot = this.index.slot('webhooks', [entry.webhook_id]);
    if (slot === undefined) throw new Error(`outbox: no webhook ${entry.webhook_id} on this shard`);
    void this.outbox.put([slot, dueMs, entry.event_id], entry);
  }

  remove(dueMs: number, eventId: string): void {
    const slot = this.index.slot('outbox', [dueMs, eventId]);
    if (slot !== undefined) void this.outbox.remove([slot, dueMs, eventId]);
  }

  /** Every entry, earliest due first. */
  *byDue(): Generator<{ dueMs: number; entry: OutboxEntry }> {
    for (const { parts, slot } of this.index.entries('outbox')) {
      const entry = this.outbox.get([slot, ...parts]);
      if (entry) yield { dueMs: parts[0] as number, entry };
    }
  }
}
