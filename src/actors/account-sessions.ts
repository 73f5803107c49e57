// The open agent-tool sessions of the accounts on this shard, counted against each plan's cap
// across every front (DESIGN §4, §7), with the terms any front needs to serve one another front
// opened. In memory only: a shard restart ends every session (clients open a new one).
import { sessionCap, type Plan } from '../config/plans.js';
import { fail } from '../errors/registry.js';
import type { SessionTerms } from '../contract/commands.js';

interface OpenSession {
  seen: number;
  idleMs: number;
  terms: SessionTerms;
}

export class AccountSessions {
  /** Per account: session id → last activity (ms), idle limit and terms. */
  private readonly sessions = new Map<string, Map<string, OpenSession>>();

  /**
   * `idledOut`: told of each session that ends for being idle, so that every front drops its copy
   * as on DELETE (issue 36): no front may serve a session that no longer counts against the cap.
   */
  constructor(private readonly now: () => number, private readonly idledOut: (accountId: string, sessionId: string) => void = () => undefined) {}

  private drop(accountId: string, live: Map<string, OpenSession>, sessionId: string): void {
    live.delete(sessionId);
    this.idledOut(accountId, sessionId);
  }

  /** The account's sessions that are not idle, idle ones dropped. */
  live(accountId: string): Map<string, OpenSession> {
    let live = this.sessions.get(accountId);
    if (!live) {
      live = new Map();
      this.sessions.set(accountId, live);
    }
    const now = this.now();
    for (const [id, s] of live) if (now - s.seen > s.idleMs) this.drop(accountId, live, id);
    return live;
  }

  count(accountId: string): number {
    return this.live(accountId).size;
  }

  /** Counts a session against the plan's cap: SEED.md's on Growth and up, discovery ones below (DESIGN §7). */
  open(accountId: string, plan: Plan, sessionId: string, idleMs: number, terms: SessionTerms): { open: number } {
    const live = this.live(accountId);
    const cap = sessionCap(plan);
    if (!live.has(sessionId) && live.size >= cap) {
      // Retry-After (DESIGN §4: on every 429): when the session seen longest ago idles out, unless used meanwhile.
      let freesAt = Infinity;
      for (const s of live.values()) freesAt = Math.min(freesAt, s.seen + s.idleMs);
      const retry_after_s = Math.max(1, Math.ceil((freesAt - this.now()) / 1000));
      fail('session_limit', `Concurrent session limit reached (${cap} on ${plan.title})`, { limit: cap, retry_after_s });
    }
    live.set(sessionId, { seen: this.now(), idleMs, terms });
    return { open: live.size };
  }

  /**
   * An open session's terms for a front that has not served it yet, or null. Read from memory only,
   * so asking about a session id before the caller is admitted reads nothing stored; the front uses
   * the answer only once admission has found the same account.
   */
  find(accountId: string, sessionId: string): SessionTerms | null {
    const live = this.sessions.get(accountId);
    const s = live?.get(sessionId);
    if (!s) return null;
    const now = this.now();
    if (now - s.seen > s.idleMs) {
      this.drop(accountId, live!, sessionId);
      return null;
    }
    s.seen = now;
    return s.terms;
  }

  touch(accountId: string, sessionId: string): void {
    const s = this.sessions.get(accountId)?.get(sessionId);
    if (s) s.seen = this.now();
  }

  /** Answers whether the session was open. */
  close(accountId: string, sessionId: string): boolean {
    return this.sessions.get(accountId)?.delete(sessionId) ?? false;
  }

  /** A key rotation: every session of the account ends. */
  closeAccount(accountId: string): void {
    this.sessions.delete(accountId);
  }

  /** A scoped key rotated or deleted: the sessions it opened end. */
  closeKey(accountId: string, keyId: string): void {
    const live = this.sessions.get(accountId);
    if (!live) return;
    for (const [id, s] of live) if (s.terms.key?.startsWith(`${keyId}:`)) live.delete(id);
  }

  /** Drops idle sessions; answers how many went. */
  purge(): number {
    const now = this.now();
    let removed = 0;
    for (const [accountId, live] of this.sessions) {
      for (const [id, s] of live) {
        if (now - s.seen <= s.idleMs) continue;
        this.drop(accountId, live, id);
        removed++;
      }
      if (live.size === 0) this.sessions.delete(accountId);
    }
    return removed;
  }

  get size(): number {
    let n = 0;
    for (const live of this.sessions.values()) n += live.size;
    return n;
  }
}
