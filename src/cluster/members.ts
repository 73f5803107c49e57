// Membership (DESIGN.md §8): each shard keeps `members/<id>` alive on an etcd lease, so its key
// vanishes on its own when the process dies or loses etcd for longer than the lease TTL.
import { randomUUID } from 'node:crypto';
import type { Lease } from 'etcd3';
import type { Namespace } from './etcd.js';

export const MEMBERS_PREFIX = 'members/';

export type MemberState = 'joining' | 'active' | 'draining' | 'catching_up';

export interface MemberInfo {
  readonly id: string;
  /** host:port other cluster processes dial for gRPC. */
  readonly address: string;
  readonly state: MemberState;
  /** The data directory's incarnation id (created with the directory, DESIGN.md §8 "Identity"). */
  readonly incarnation?: string;
  /** New for every process start: the controller then fails over what it held and takes it out of the in-sync sets. */
  readonly session?: string;
}

/** Hooks of a registration: a new session begins (before its key is written). */
export interface RegistrationHooks {
  onError(err: Error): void;
  newSession?(): void;
  /** The lease is surely alive again after a time it was not (what waited for it may go on). */
  freshAgain?(): void;
}

/** A member id becomes one etcd key segment: no slashes, nothing exotic. */
export const MEMBER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

export class MemberRegistration {
  private lease: Lease | null = null;
  private closed = false;
  /** performance.now() when the keep-alive that last succeeded was sent (etcd keeps the lease at least TTL from then). */
  private aliveAt = -Infinity;
  private readonly onError: (err: Error) => void;

  private constructor(
    private readonly ns: Namespace,
    private info: MemberInfo,
    private readonly ttlS: number,
    private readonly hooks: RegistrationHooks,
  ) {
    this.onError = hooks.onError;
  }

  static async register(ns: Namespace, info: MemberInfo, ttlS: number, hooks: RegistrationHooks | ((err: Error) => void)): Promise<MemberRegistration> {
    if (!MEMBER_ID.test(info.id)) throw new Error(`member id "${info.id}" must be letters, digits, "_", "." or "-"`);
    const reg = new MemberRegistration(ns, info, ttlS, typeof hooks === 'function' ? { onError: hooks } : hooks);
    await reg.grant();
    return reg;
  }

  /**
   * Lease fencing (DESIGN.md §8): true while the lease is surely alive in etcd, i.e. the last
   * successful keep-alive was sent less than the TTL minus a safety margin (a third of it) ago.
   */
  fresh(): boolean {
    return performance.now() - this.aliveAt < (this.ttlS * 1000 * 2) / 3;
  }

  get current(): MemberInfo {
    return this.info;
  }

  /** Grants a lease and writes the member key on it; a lost lease (etcd unreachable past the TTL) is granted again. */
  private async grant(): Promise<void> {
    const sent = performance.now();
    const lease = this.ns.lease(this.ttlS);
    this.lease = lease;
    let fired = sent;
    lease.on('keepaliveFired', () => { fired = performance.now(); });
    lease.on('keepaliveSucceeded', () => { if (this.lease === lease) this.alive(fired); });
    lease.on('lost', (err) => {
      if (this.closed || this.lease !== lease) return;
      this.aliveAt = -Infinity;
      this.onError(err);
      this.retry();
    });
    await lease.grant();
    if (this.info.session === undefined) {
      // The process's session: whatever the map names this member primary of waits for the controller
      // to move it on (a restarted process knows nothing of what it acknowledged before). A lease
      // granted again keeps the session: what a follower holds is judged by its primaries.
      this.hooks.newSession?.();
      this.info = { ...this.info, session: randomUUID() };
    }
    await lease.put(`${MEMBERS_PREFIX}${this.info.id}`).value(JSON.stringify(this.info));
    if (this.lease === lease) this.alive(Math.max(this.aliveAt, sent));
  }

  private alive(at: number): void {
    const was = this.fresh();
    this.aliveAt = at;
    if (!was && this.fresh()) this.hooks.freshAgain?.();
  }

  private retry(): void {
    setTimeout(() => {
      if (this.closed) return;
      this.grant().catch((err: Error) => {
        this.onError(err);
        this.retry();
      });
    }, 1000).unref();
  }

  async setState(state: MemberState): Promise<void> {
    this.info = { ...this.info, state };
    if (this.lease) await this.lease.put(`${MEMBERS_PREFIX}${this.info.id}`).value(JSON.stringify(this.info));
  }

  /** Leaves the cluster now: the key goes with the revoked lease. */
  async close(): Promise<void> {
    this.closed = true;
    const lease = this.lease;
    this.lease = null;
    if (lease) await lease.revoke().catch(() => lease.release());
  }
}

export async function readMembers(ns: Namespace): Promise<MemberInfo[]> {
  const all = await ns.getAll().prefix(MEMBERS_PREFIX).strings();
  return Object.values(all).map((v) => JSON.parse(v) as MemberInfo).sort((a, b) => a.id.localeCompare(b.id));
}
