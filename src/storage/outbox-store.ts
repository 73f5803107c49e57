// Pending webhook notifications, ordered by when they are due. An entry commits in the same
// transaction as the message it announces, so a restart resumes it. Key layout: outbox
// [due_ms, event_id] → entry.
import type { Database, RootDatabase } from 'lmdb';
import { openDb, type Key } from './keys.js';

export interface OutboxEntry {
  event_id: string;
  webhook_id: string;
  body: string;
  /** Attempts made so far. */
  attempt: number;
}

export class OutboxStore {
  private readonly outbox: Database<OutboxEntry, Key>;

  constructor(root: RootDatabase) {
    this.outbox = openDb<OutboxEntry>(root, 'outbox');
  }

  put(dueMs: number, entry: OutboxEntry): void {
    void this.outbox.put([dueMs, entry.event_id], entry);
  }

  remove(dueMs: number, eventId: string): void {
    void this.outbox.remove([dueMs, eventId]);
  }

  /** Every entry, earliest due first. */
  *byDue(): Generator<{ dueMs: number; entry: OutboxEntry }> {
    for (const { key, value } of this.outbox.getRange({})) yield { dueMs: (key as [number, string])[0], entry: value };
  }
}
