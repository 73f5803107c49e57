// How a shard's webhook senders are shared across accounts (DESIGN §7 "Shared workers are fair").
// First come, first served let one account with a slow receiver and a long backlog hold every
// sender while everyone else's notifications queued behind it (issue 33). Now each account holds
// at most ACCOUNT_IN_FLIGHT attempts at once: an entry of an account at its share is passed over
// and kept here (deferred, in due order) for when one of its own attempts ends, and the next
// account's entry goes now. So an account's backlog waits behind its own work only.
//
// The pump reads the due index from where it stopped last (less RESCAN_MS, for entries written in
// the same millisecond as the last one it saw), not from the start: a long deferred backlog is
// read once, not on every pump.
import type { DueKey } from '../storage/outbox-store.js';

/** Attempts in flight on one shard, over every account (sockets and memory). */
export const MAX_IN_FLIGHT = 256;
/** Attempts in flight for one account: its fair share when several are busy. */
export const ACCOUNT_IN_FLIGHT = 32;
/** Entries kept passed over at most; past it the pump stops reading further (it resumes as they go). */
const MAX_DEFERRED = 100_000;
const RESCAN_MS = 1_000;

export class SenderShares {
  private readonly byAccount = new Map<string, number>();
  private total = 0;
  /**
   * Entries passed over because their account had its share in flight, by account (event id →
   * where, in due order), so a pump skips an account at its share without reading its backlog.
   */
  private readonly deferredBy = new Map<string, Map<string, DueKey>>();
  /** Event id → account of every deferred entry. */
  private readonly deferredIds = new Map<string, string>();
  /** The last due key the pump read; null: read from the start. */
  private scanned: DueKey | null = null;

  get inFlight(): number {
    return this.total;
  }

  /** No attempt may start now, whoever's. */
  get full(): boolean {
    return this.total >= MAX_IN_FLIGHT;
  }

  /** The pump should stop reading further entries: it holds as many passed-over ones as it keeps. */
  get saturated(): boolean {
    return this.deferredIds.size >= MAX_DEFERRED;
  }

  mayStart(accountId: string): boolean {
    return this.total < MAX_IN_FLIGHT && (this.byAccount.get(accountId) ?? 0) < ACCOUNT_IN_FLIGHT;
  }

  started(accountId: string, attempts: number): void {
    this.total += attempts;
    this.byAccount.set(accountId, (this.byAccount.get(accountId) ?? 0) + attempts);
  }

  finished(accountId: string, attempts: number): void {
    this.total -= attempts;
    const left = (this.byAccount.get(accountId) ?? 0) - attempts;
    if (left > 0) this.byAccount.set(accountId, left);
    else this.byAccount.delete(accountId);
  }

  defer(due: DueKey, accountId: string): void {
    let entries = this.deferredBy.get(accountId);
    if (!entries) this.deferredBy.set(accountId, (entries = new Map()));
    entries.set(due.eventId, due);
    this.deferredIds.set(due.eventId, accountId);
  }

  isDeferred(eventId: string): boolean {
    return this.deferredIds.has(eventId);
  }

  /**
   * The passed-over entries that may start now, each account's in due order, taken off the list as
   * they are handed out; an account at its share (or all, when the senders are full) is skipped
   * without reading its entries. The caller starts each entry before asking for the next.
   */
  *resumable(): Generator<DueKey> {
    for (const [accountId, entries] of this.deferredBy) {
      for (const [eventId, due] of entries) {
        if (!this.mayStart(accountId)) break;
        entries.delete(eventId);
        this.deferredIds.delete(eventId);
        yield due;
      }
      if (entries.size === 0) this.deferredBy.delete(accountId);
      if (this.full) return;
    }
  }

  /** Where the pump reads the due index from: undefined is the start. */
  scanFrom(): number | undefined {
    return this.scanned ? this.scanned.dueMs - RESCAN_MS : undefined;
  }

  scannedTo(due: DueKey): void {
    this.scanned = due;
  }

  /** Entries arrived or changed hands (a slot gained): read the whole index again. */
  reset(): void {
    this.deferredBy.clear();
    this.deferredIds.clear();
    this.scanned = null;
  }
}
