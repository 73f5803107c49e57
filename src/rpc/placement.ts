// Where a routing key lives. Static: a fixed shard map and rendezvous hashing over it (embedded
// mode, MAILCUE_SHARDS). Cluster: the slot map from etcd (DESIGN.md §8), one client per member,
// opened when a member first owns something and closed when it leaves.
import type { SlotView } from '../cluster/slot-view.js';
import { slotOf } from '../cluster/slots.js';
import { staticSlotOwners } from '../cluster/static-slots.js';
import type { ShardAddress } from '../config/config.js';
import { MailcueError } from '../errors/registry.js';
import { Ring } from './ring.js';
import { MemberClients } from './member-clients.js';
import { ShardClient, type LatencyObserver } from './shard-client.js';
import type { TlsMaterial } from './tls.js';

export interface Route {
  readonly client: ShardClient;
  readonly slot: number;
  /** 0 when the placement does not fence (static maps). */
  readonly epoch: number;
}

export interface Placement {
  /** True when shards fence commands by slot epoch (an etcd cluster): slots change owner while it runs. */
  readonly fenced: boolean;
  route(key: string): Route;
  /** Every shard, for commands without a routing key (listings gathered across shards). */
  clients(): ShardClient[];
  /** After a `moved` answer: resolves when the slot's epoch passes `epoch`, or after `timeoutMs`. */
  changed(slot: number, epoch: number, timeoutMs: number): Promise<void>;
  /** False while some slot has no live primary (readiness). */
  complete(): boolean;
  close(): void;
}

export class StaticPlacement implements Placement {
  readonly fenced = false;
  private readonly byId = new Map<number, ShardClient>();
  private readonly ring: Ring;
  /** Embedded shards 0..n-1: the owner of each slot. */
  private readonly owners: number[] | null;

  constructor(shards: readonly ShardAddress[], observe?: LatencyObserver, tls: TlsMaterial | null = null) {
    for (const s of shards) this.byId.set(s.id, new ShardClient(s.id, s.target, observe, tls));
    this.ring = new Ring(this.byId.keys());
    this.owners = shards.length > 0 && shards.every((s) => s.bySlot) ? staticSlotOwners(shards.length) : null;
  }

  route(key: string): Route {
    const id = this.owners ? this.owners[slotOf(key)]! : this.ring.shardFor(key);
    return { client: this.byId.get(id)!, slot: 0, epoch: 0 };
  }

  clients(): ShardClient[] {
    return [...this.byId.values()];
  }

  changed(): Promise<void> {
    return Promise.resolve();
  }

  complete(): boolean {
    return true;
  }

  close(): void {
    for (const c of this.byId.values()) c.close();
  }
}

export class SlotPlacement implements Placement {
  readonly fenced = true;
  private readonly members: MemberClients;
  private served = false;

  constructor(private readonly view: SlotView, observe?: LatencyObserver, tls: TlsMaterial | null = null) {
    this.members = new MemberClients(view, tls, observe);
    view.listeners.push(() => this.members.prune());
  }

  route(key: string): Route {
    const slot = slotOf(key);
    // A map not refreshed from etcd for a lease TTL may name a primary that was fenced meanwhile.
    if (this.view.stale) throw new MailcueError('unavailable', 'This front has not heard from etcd within the lease TTL', { slot, retry_after_s: 1 });
    const { primary, epoch } = this.view.entry(slot);
    const client = primary === null ? undefined : this.members.get(primary);
    if (!client) throw new MailcueError('unavailable', `Slot ${slot} has no live primary`, { retry_after_s: 1 });
    return { client, slot, epoch };
  }

  clients(): ShardClient[] {
    return this.view.members().map((m) => this.members.get(m.id)!);
  }

  changed(slot: number, epoch: number, timeoutMs: number): Promise<void> {
    return this.view.epochAfter(slot, epoch, timeoutMs);
  }

  /**
   * Ready once the map first gave every slot a live primary, and while the view is not stale. A
   * slot failing over later (no primary for a while) does not make the front unready: its requests
   * wait or answer 503 with Retry-After, and the other slots are served.
   */
  complete(): boolean {
    if (this.view.stale) return false;
    if (!this.served) this.served = this.view.complete;
    return this.served;
  }

  close(): void {
    this.members.close();
  }
}
