// Membership (DESIGN.md §8): each shard keeps `members/<id>` alive on an etcd lease, so its key
// vanishes on its own when the process dies or loses etcd for longer than the lease TTL.
import type { Lease } from 'etcd3';
import type { Namespace } from './etcd.js';

export const MEMBERS_PREFIX = 'members/';

export type MemberState = 'joining' | 'active' | 'draining' | 'catching_up';

export interface MemberInfo {
  readonly id: string;
  /** host:port other cluster processes dial for gRPC. */
  readonly address: string;
  readonly state: MemberState;
}

/** A member id becomes one etcd key segment: no slashes, nothing exotic. */
export const MEMBER_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

export class MemberRegistration {
  private lease: Lease | null = null;
  private closed = false;

  private constructor(
    private readonly ns: Namespace,
    private info: MemberInfo,
    private readonly ttlS: number,
    private readonly onError: (err: Error) => void,
  ) {}

  static async register(ns: Namespace, info: MemberInfo, ttlS: number, onError: (err: Error) => void): Promise<MemberRegistration> {
    if (!MEMBER_ID.test(info.id)) throw new Error(`member id "${info.id}" must be letters, digits, "_", "." or "-"`);
    const reg = new MemberRegistration(ns, info, ttlS, onError);
    await reg.grant();
    return reg;
  }

  get current(): MemberInfo {
    return this.info;
  }

  /** Grants a lease and writes the member key on it; a lost lease (etcd unreachable past the TTL) is granted again. */
  private async grant(): Promise<void> {
    const lease = this.ns.lease(this.ttlS);
    this.lease = lease;
    lease.on('lost', (err) => {
      if (this.closed || this.lease !== lease) return;
      this.onError(err);
      this.retry();
    });
    await lease.put(`${MEMBERS_PREFIX}${this.info.id}`).value(JSON.stringify(this.info));
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
