// Routing keys → slots (DESIGN.md §8 "Slots"): the first four bytes of the SHA-256 of the key,
// big-endian, modulo S. S is fixed for the life of a data set, so a key never changes slot; only
// whole slots move between shards.
import { hash } from 'node:crypto';

export const SLOT_COUNT = 1024;

/** The slot of a routing key (lowercase address, account id or lowercase domain), UTF-8. */
export function slotOf(key: string): number {
  // One-shot hash: a front routes every request by it, and createHash's object costs twice the time.
  return hash('sha256', key, 'buffer').readUInt32BE(0) % SLOT_COUNT;
}
