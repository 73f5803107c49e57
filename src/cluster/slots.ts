// Routing keys → slots (DESIGN.md §8 "Slots"): the first four bytes of the SHA-256 of the key,
// big-endian, modulo S. S is fixed for the life of a data set, so a key never changes slot; only
// whole slots move between shards.
import { hash } from 'node:crypto';
import { remembered } from '../util/remembered.js';

export const SLOT_COUNT = 1024;

/**
 * The slot of a routing key (lowercase address, account id or lowercase domain), UTF-8. The slots
 * of the last 65,536 keys are remembered: a front routes each request by two (account, inbox), a
 * shard keys each record by one, and the same keys come back call after call (10,000 agents reading
 * one inbox each take 20,000).
 */
export const slotOf: (key: string) => number = remembered(
  // One-shot hash: createHash's object costs twice the time.
  (key) => hash('sha256', key, 'buffer').readUInt32BE(0) % SLOT_COUNT,
  65_536,
);
