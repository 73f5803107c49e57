// Where each slot's current epoch began on this primary (Kafka's leader-epoch cache, KIP-101): the
// epoch, the last entry it held when it took the slot over, and the epoch of the copy it took over
// from. A follower whose copy was made in that earlier epoch and ends at or before that entry holds
// nothing the new primary lacks: it adopts the new epoch and continues from its own position.
import type { ShardStore } from '../storage/shard-store.js';

export interface EpochStart {
  readonly epoch: number;
  readonly start: number;
  readonly prev: number;
}

export class LeaderEpochs {
  constructor(private readonly store: ShardStore) {}

  get(slot: number): EpochStart | undefined {
    return this.store.oplog.leaderEpoch(slot);
  }

  /** Inside no transaction: records the start of `epoch` (the copy's position before it became the primary's). */
  began(slot: number, epoch: number, from: { epoch: number; seq: number } | undefined): Promise<void> {
    const start = from ? Math.max(0, from.seq) : this.store.oplog.seq(slot);
    return this.store.transaction(() => this.store.oplog.setLeaderEpoch(slot, { epoch, start, prev: from?.epoch ?? -1 }));
  }
}
