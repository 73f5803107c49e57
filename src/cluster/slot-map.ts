// The slot map as etcd holds it: for each of the S slots its primary, its followers and an epoch
// that grows every time the slot's owner changes. Plain data (JSON in etcd); pure helpers only.
import { SLOT_COUNT } from './slots.js';

export interface SlotEntry {
  readonly slot: number;
  /** The member id that serves the slot, or null before any member has joined. */
  readonly primary: string | null;
  /** Members that hold a copy (replication, DESIGN.md §8; empty until replicas are configured). */
  readonly followers: readonly string[];
  /** Bumped in the same transaction that changes the primary: fences stale owners. */
  readonly epoch: number;
}

export type SlotMap = readonly SlotEntry[];

export function emptySlotMap(): SlotMap {
  return Array.from({ length: SLOT_COUNT }, (_, slot) => ({ slot, primary: null, followers: [], epoch: 0 }));
}

/** Primaries per member (members holding no slot are absent). */
export function primaryCounts(map: SlotMap): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of map) if (e.primary !== null) counts.set(e.primary, (counts.get(e.primary) ?? 0) + 1);
  return counts;
}

/**
 * A copy of `map` with `slot` handed to `primary` at the next epoch. `keepOld`: the old primary
 * stays as a follower (a move from a live member whose copy matches the new primary's).
 */
export function withPrimary(map: SlotMap, slot: number, primary: string, keepOld = false): SlotMap {
  const next = map.slice();
  const old = map[slot]!;
  const followers = old.followers.filter((f) => f !== primary);
  if (keepOld && old.primary !== null && old.primary !== primary) followers.push(old.primary);
  next[slot] = { slot, primary, followers, epoch: old.epoch + 1 };
  return next;
}

/** A copy of `map` with new follower lists where they differ (no epoch change: followers serve nothing). */
export function withFollowers(map: SlotMap, followers: readonly (readonly string[])[]): { map: SlotMap; changed: number } {
  let changed = 0;
  const next = map.map((e) => {
    const f = followers[e.slot]!;
    if (f.length === e.followers.length && f.every((m, i) => m === e.followers[i])) return e;
    changed++;
    return { ...e, followers: [...f] };
  });
  return { map: next, changed };
}

/** Compact wire form: [primary, followers, epoch] per slot, in slot order. */
export function encodeSlotMap(map: SlotMap): string {
  return JSON.stringify(map.map((e) => [e.primary, e.followers, e.epoch]));
}

export function decodeSlotMap(text: string): SlotMap {
  const rows = JSON.parse(text) as [string | null, string[], number][];
  if (!Array.isArray(rows) || rows.length !== SLOT_COUNT) throw new Error(`slot map must have ${SLOT_COUNT} slots`);
  return rows.map(([primary, followers, epoch], slot) => ({ slot, primary, followers, epoch }));
}
