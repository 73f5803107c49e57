// Routing keys → slots (DESIGN.md §8 "Slots"): the first four bytes of the SHA-256 of the key,
// big-endian, modulo S. S is fixed for the life of a data set, so a key never changes slot; only
// whole slots move between shards.
import { hash } from 'node:crypto';

export const SLOT_COUNT = 1024;

/** The slot of a routing key (lowercase address, account id or lowercase domain), UTF-8. */
export function slotOf(key: string): number {
  let slot = recent.get(key);
  if (slot === undefined) {
    // One-shot hash: createHash's object costs twice the time.
    slot = hash('sha256', key, 'buffer').readUInt32BE(0) % SLOT_COUNT;
    if (recent.size >= RECENT_MAX) recent.clear();
    recent.set(key, slot);
  }
  return slot;
}

/**
 * Slots of recent keys: a front routes each request by two (account, inbox), a shard keys each
 * record by one, and the same keys come back call after call. Bounded; a flood of new keys only
 * empties it.
 */
const recent = new Map<string, number>();
const RECENT_MAX = 16_384;
