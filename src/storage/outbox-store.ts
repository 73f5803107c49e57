// Pending webhook notifications, ordered by when they are due. An entry commits in the same
// transaction as the message it announces, so a restart resumes it. It lives in its inbox's slot
// (so it moves with its webhooks); the slot index keeps every entry of the shard in due order. Key
// layout (keys.ts): outbox [slot, due_ms, event_id] → entry.
//
// A message's first attempts to all its inbox's webhooks share one entry: one put per message, and
// its body stored once, rather than one of each per webhook (10 webhooks: 3 writes at ingest, not
// 30). An entry keeps the targets not yet attempted and logged; a retry is an entry of its own with
// one target.
import type { Database, RootDatabase } from 'lmdb';
import { openDb, type Key } from './keys.js';
import { slotIndexOf, type SlotIndex } from './slot-index.js';

/** One notification: the webhook it goes to and the id it goes out under (the same on every retry). */
export interface OutboxTarget {
  webhook_id: string;
  event_id: string;
}

export interface OutboxEntry {
  /** The entry's own id, in its key (a retry's is its one target's event id). */
  event_id: string;
  body: string;
  /** Attempts made so far. */
  attempt: number;
  /** Targets not yet attempted and logged. */
  targets: OutboxTarget[];
}

/** As entries were written before first attempts shared one: a single webhook, under the entry's id. */
interface SingleTargetEntry {
  event_id: string;
  webhook_id: string;
  body: string;
  attempt: number;
}

export interface DueKey {
  slot: number;
  dueMs: number;
  eventId: string;
}

export class OutboxStore {
  private readonly outbox: Database<OutboxEntry | SingleTargetEntry, Key>;
  private readonly index: SlotIndex;

  constructor(root: RootDatabase) {
    this.outbox = openDb<OutboxEntry | SingleTargetEntry>(root, 'outbox');
    this.index = slotIndexOf(root);
  }

  /** Inside a transaction: an entry for webhooks of an inbox in `slot` (its webhooks' slot). */
  put(dueMs: number, entry: OutboxEntry, slot: number): void {
    void this.outbox.put([slot, dueMs, entry.event_id], entry);
  }

  remove(at: DueKey): void {
    void this.outbox.remove([at.slot, at.dueMs, at.eventId]);
  }

  /** Where every entry sits, earliest due first (index keys only: no entry is read); from `fromMs` on when given. */
  *dueKeys(fromMs?: number): Generator<DueKey> {
    const entries = fromMs === undefined ? this.index.entries('outbox') : this.index.entriesFrom('outbox', [fromMs]);
    for (const { parts, slot } of entries) yield { slot, dueMs: parts[0] as number, eventId: parts[1] as string };
  }

  get(at: DueKey): OutboxEntry | undefined {
    const stored = this.outbox.get([at.slot, at.dueMs, at.eventId]);
    if (!stored || 'targets' in stored) return stored;
    return { event_id: stored.event_id, body: stored.body, attempt: stored.attempt, targets: [{ webhook_id: stored.webhook_id, event_id: stored.event_id }] };
  }
}
