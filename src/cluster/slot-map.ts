// The slot map as etcd holds it: for each of the S slots its primary, its followers, its in-sync
// set (`isr`: the copies that hold every acknowledged entry, DESIGN.md §8 "Replication") and an
// epoch that grows every time the slot's owner changes. Plain data (JSON in etcd); pure helpers only.
import { SLOT_COUNT } from './slots.js';

export interface SlotEntry {
  readonly slot: number;
  /** The member id that serves the slot, or null before any member has joined. */
  readonly primary: string | null;
  /** Members that hold a copy (replication, DESIGN.md §8; empty until replicas are configured). */
  readonly followers: readonly string[];
  /** Bumped in the same transaction that changes the primary: fences stale owners. */
  readonly epoch: number;
  /**
   * The in-sync set: the primary and the followers that hold every acknowledged entry. Only these
   * may be promoted; a write is acknowledged once all of them committed it. Changed only by map
   * transactions (the primary shrinks and grows it; the controller on failover and moves).
   */
  readonly isr: readonly string[];
}

export type SlotMap = readonly SlotEntry[];

export function emptySlotMap(): SlotMap {
  return Array.from({ length: SLOT_COUNT }, (_, slot) => ({ slot, primary: null, followers: [], epoch: 0, isr: [] }));
}

/** Primaries per member (members holding no slot are absent). */
export function primaryCounts(map: SlotMap): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of map) if (e.primary !== null) counts.set(e.primary, (counts.get(e.primary) ?? 0) + 1);
  return counts;
}

/**
 * A copy of `map` with `slot` handed to `primary` at the next epoch. `keepOld`: the old primary
 * stays as a follower (a move from a live member whose copy matches the new primary's), and in the
 * in-sync set if it was there. A slot that never had an owner starts with the primary alone in sync.
 */
export function withPrimary(map: SlotMap, slot: number, primary: string, keepOld = false): SlotMap {
  const next = map.slice();
  const old = map[slot]!;
  const followers = old.followers.filter((f) => f !== primary);
  if (keepOld && old.primary !== null && old.primary !== primary) followers.push(old.primary);
  const isr = old.primary === null ? [primary] : old.isr.filter((m) => m === primary || followers.includes(m));
  next[slot] = { slot, primary, followers, epoch: old.epoch + 1, isr: sortIsr(primary, isr) };
  return next;
}

/**
 * A copy of `map` with new follower lists where they differ (no epoch change: followers serve
 * nothing). A member that stops being a follower leaves the in-sync set in the same change.
 */
export function withFollowers(map: SlotMap, followers: readonly (readonly string[])[]): { map: SlotMap; changed: number } {
  let changed = 0;
  const next = map.map((e) => {
    const f = followers[e.slot]!;
    if (f.length === e.followers.length && f.every((m, i) => m === e.followers[i])) return e;
    changed++;
    return { ...e, followers: [...f], isr: e.isr.filter((m) => m === e.primary || f.includes(m)) };
  });
  return { map: next, changed };
}

/** The in-sync set in a stable order: the primary first, then the followers by id. */
export function sortIsr(primary: string | null, isr: readonly string[]): string[] {
  const rest = [...new Set(isr)].filter((m) => m !== primary).sort();
  return primary !== null && isr.includes(primary) ? [primary, ...rest] : rest;
}

/** Compact wire form: [primary, followers, epoch, isr] per slot, in slot order. */
export function encodeSlotMap(map: SlotMap): string {
  return JSON.stringify(map.map((e) => [e.primary, e.followers, e.epoch, e.isr]));
}

export function decodeSlotMap(text: string): SlotMap {
  const rows = JSON.parse(text) as [string | null, string[], number, string[]?][];
  if (!Array.isArray(rows) || rows.length !== SLOT_COUNT) throw new Error(`slot map must have ${SLOT_COUNT} slots`);
  // A map written before the in-sync set existed: only the primary is known to be in sync.
  return rows.map(([primary, followers, epoch, isr], slot) => ({ slot, primary, followers, epoch, isr: isr ?? (primary === null ? [] : [primary]) }));
}
