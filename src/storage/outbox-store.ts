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

export interface DueKey {
  slot: number;
  dueMs: number;
  eventId: string;
}

export class OutboxStore {
  private readonly outbox: Database<OutboxEntry, Key>;
  private readonly index: SlotIndex;

  constructor(root: RootDatabase) {
    this.outbox = openDb<OutboxEntry>(root, 'outbox');
    this.index = slotIndexOf(root);
  }

  /**
   * Inside a transaction: an entry of a webhook this shard holds, in the webhook's slot (looked up
   * when the caller does not know it).
   */
  put(dueMs: number, entry: OutboxEntry, slot = this.index.slot('webhooks', [entry.webhook_id])): void {
    if (slot === undefined) throw new Error(`outbox: no webhook ${entry.webhook_id} on this shard`);
    void this.outbox.put([slot, dueMs, entry.event_id], entry);
  }

  remove(at: DueKey): void {
    void this.outbox.remove([at.slot, at.dueMs, at.eventId]);
  }

  /** Where every entry sits, earliest due first (index keys only: no entry is read). */
  *dueKeys(): Generator<DueKey> {
    for (const { parts, slot } of this.index.entries('outbox')) yield { slot, dueMs: parts[0] as number, eventId: parts[1] as string };
  }

  get(at: DueKey): OutboxEntry | undefined {
    return this.outbox.get([at.slot, at.dueMs, at.eventId]);
  }
}
