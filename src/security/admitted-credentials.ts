// The credentials this front saw admitted in the last minute (DESIGN §7), keyed by the SHA-256 of
// the credential. It never admits anything: the account's shard checks every request. It only lets
// a read start beside its admission; a credential it does not hold waits for admission first.
// Entries of an account go when its shard pushes a rotation or plan change, and all of a shard's
// go whenever the front cannot hear that shard's notices.
import type { PlanName } from '../config/plans.js';
import type { KeyScope } from '../contract/keys.js';

export const ADMITTED_TTL_MS = 60_000;
/**
 * Credentials held at most. Sized for a front's whole population of active agents: a cache smaller
 * than the credentials that take turns on it misses on every request (10,010 keys in turn over
 * 10,000 entries: every read waited for its admission, issue 37 `accounts`).
 */
export const ADMITTED_MAX = 100_000;

type ShardId = number | string;

export interface AdmittedEntry {
  readonly accountId: string;
  plan: PlanName;
  at: number;
  readonly shard: ShardId;
  /** A scoped credential's scope as admission answered it (keys are never edited, only rotated or deleted). */
  readonly scope?: KeyScope;
}

export class AdmittedCredentials {
  /** By credential hash, in first-admitted order (the oldest is evicted first). */
  private readonly entries = new Map<string, AdmittedEntry>();
  /**
   * Generations announced by rotations: an admission answered before a rotation may arrive after
   * its notice (they travel on different streams), and must not be remembered then.
   */
  private readonly rotated = new Map<string, number>();
  /** Scoped keys rotated or deleted, by id: their new generation (the same race as `rotated`). */
  private readonly revokedKeys = new Map<string, number>();

  constructor(
    /** The shard that holds the account, or null when none does now (a slot moving). */
    private readonly shardOf: (accountId: string) => ShardId | null,
    private readonly listening: (shard: ShardId) => boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** After a successful admission, with the account's credential generation it reported. */
  remember(hash: string, accountId: string, plan: PlanName, generation: number, scope?: KeyScope): void {
    const entry = this.entries.get(hash);
    if (entry) {
      entry.at = this.now();
      entry.plan = plan;
      return;
    }
    if ((this.rotated.get(accountId) ?? -1) > generation) return;
    if (scope && (this.revokedKeys.get(scope.key_id) ?? -1) > scope.generation) return;
    const shard = this.shardOf(accountId);
    // Admitted while the shard's notices are not heard: a revocation could pass unseen.
    if (shard === null || !this.listening(shard)) return;
    if (this.entries.size >= ADMITTED_MAX) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { accountId, plan, at: this.now(), shard, ...(scope ? { scope } : {}) });
  }

  /** The entry of a credential admitted here within the last 60 s, whose shard is still heard. */
  lookup(hash: string): AdmittedEntry | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    const now = this.now();
    if (now - entry.at >= ADMITTED_TTL_MS || !this.listening(entry.shard) || (entry.scope?.expires_at != null && entry.scope.expires_at <= now)) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry;
  }

  /** A rotation or plan change pushed by the account's shard. */
  changed(accountId: string, generation: number): void {
    if (this.rotated.size >= ADMITTED_MAX) this.rotated.delete(this.rotated.keys().next().value!);
    this.rotated.set(accountId, generation);
    this.forgetAccount(accountId);
  }

  /** A scoped key rotated (to `generation`) or deleted, pushed by the account's shard. */
  keyRevoked(keyId: string, generation: number): void {
    if (this.revokedKeys.size >= ADMITTED_MAX) this.revokedKeys.delete(this.revokedKeys.keys().next().value!);
    this.revokedKeys.set(keyId, generation);
    for (const [hash, e] of this.entries) if (e.scope?.key_id === keyId) this.entries.delete(hash);
  }

  forgetAccount(accountId: string): void {
    for (const [hash, e] of this.entries) if (e.accountId === accountId) this.entries.delete(hash);
  }

  forgetShard(shard: ShardId): void {
    for (const [hash, e] of this.entries) if (e.shard === shard) this.entries.delete(hash);
  }

  get size(): number {
    return this.entries.size;
  }
}
