// One ShardClient per cluster member, opened on first use and opened again when the member's
// advertised address changes (a shard that restarted elsewhere). Fronts route through it, and
// shards use it to reach each other for replication and slot moves.
import type { SlotView } from '../cluster/slot-view.js';
import { ShardClient, type LatencyObserver } from './shard-client.js';
import type { TlsMaterial } from './tls.js';

export class MemberClients {
  private readonly byMember = new Map<string, ShardClient>();

  constructor(private readonly view: SlotView, private readonly tls: TlsMaterial | null, private readonly observe?: LatencyObserver) {}

  /** The member's client; undefined when the member is not in the cluster. */
  get(id: string): ShardClient | undefined {
    const member = this.view.member(id);
    if (!member) return undefined;
    let client = this.byMember.get(id);
    if (client && client.target !== member.address) {
      client.close();
      client = undefined;
    }
    if (!client) {
      client = new ShardClient(id, member.address, this.observe, this.tls);
      this.byMember.set(id, client);
    }
    return client;
  }

  /** Closes the clients of members that left (their requests fail and are retried by the caller). */
  prune(): void {
    for (const [id, client] of this.byMember) {
      if (this.view.member(id)) continue;
      this.byMember.delete(id);
      client.close();
    }
  }

  close(): void {
    for (const c of this.byMember.values()) c.close();
    this.byMember.clear();
  }
}
