// Slots over a fixed set of shards (embedded mode's worker threads): the controller's assignment
// computed once from an empty map, so every process that knows the shard count agrees on it.
import { assignPrimaries } from './assignment.js';
import { emptySlotMap } from './slot-map.js';

/** The shard id that owns each slot, for shards 0..count-1. */
export function staticSlotOwners(count: number): number[] {
  const ids = Array.from({ length: count }, (_, i) => String(i));
  return assignPrimaries({ map: emptySlotMap(), eligible: ids, live: ids }).map((id) => Number(id));
}
