// The controller's slot assignment (DESIGN.md §8 "Coordination"): rendezvous hashing of each slot
// over the eligible members, so a membership change moves only the slots it must, then the fewest
// extra moves that bring every member within ±5 % of S/members primaries. Pure: same inputs, same
// answer, whatever order the members are listed in.
import { createHash } from 'node:crypto';
import type { SlotMap } from './slot-map.js';
import { SLOT_COUNT } from './slots.js';

export const BALANCE_TOLERANCE = 0.05;

export interface AssignmentInput {
  readonly map: SlotMap;
  /** Members that may receive slots: live and not draining. */
  readonly eligible: readonly string[];
  /** Every member with a live lease, draining ones included (their slots can still be copied). */
  readonly live: readonly string[];
}

export interface Move {
  readonly slot: number;
  /** null: the slot never had an owner, nothing to copy. */
  readonly from: string | null;
  readonly to: string;
}

const weightCache = new Map<string, Uint32Array>();

/** Rendezvous weight of `slot` for `member`: the first 4 bytes of SHA-256("member/slot"). */
function weights(member: string): Uint32Array {
  let w = weightCache.get(member);
  if (w) return w;
  w = new Uint32Array(SLOT_COUNT);
  for (let s = 0; s < SLOT_COUNT; s++) w[s] = createHash('sha256').update(`${member}/${s}`).digest().readUInt32BE(0);
  if (weightCache.size > 1024) weightCache.clear();
  weightCache.set(member, w);
  return w;
}

/** The rendezvous weight of `slot` for `member` (higher wins): what assignment ranks members by. */
export function rendezvousWeight(member: string, slot: number): number {
  return weights(member)[slot]!;
}

/**
 * The followers each slot should have (DESIGN.md §8 "Replication"): the `replicas - 1` eligible
 * members other than the primary that rendezvous hashing ranks highest for the slot. Balanced
 * without bookkeeping, and a membership change moves only the copies it must.
 */
export function assignFollowers(map: SlotMap, eligible: readonly string[], replicas: number): (readonly string[])[] {
  const members = [...new Set(eligible)].sort();
  const weight = new Map(members.map((m) => [m, weights(m)]));
  return map.map((e) => {
    if (e.primary === null) return e.followers;
    const rank = (m: string) => weight.get(m)![e.slot]!;
    return members.filter((m) => m !== e.primary).sort((a, b) => rank(b) - rank(a)).slice(0, Math.max(0, replicas - 1));
  });
}

/** [lo, hi] primaries per member: ±5 % of the fair share, widened to whole numbers that fit. */
export function balanceBounds(slots: number, members: number): { lo: number; hi: number } {
  const fair = slots / members;
  return {
    lo: Math.min(Math.ceil(fair * (1 - BALANCE_TOLERANCE)), Math.floor(fair)),
    hi: Math.max(Math.floor(fair * (1 + BALANCE_TOLERANCE)), Math.ceil(fair)),
  };
}

/** The primary each slot should have; slots held by a member without a lease stay where they are. */
export function assignPrimaries(input: AssignmentInput): (string | null)[] {
  const eligible = [...new Set(input.eligible)].sort();
  const live = new Set(input.live);
  const owner = input.map.map((e) => e.primary);
  if (eligible.length === 0) return owner;
  const weight = new Map(eligible.map((m) => [m, weights(m)]));
  const count = new Map(eligible.map((m) => [m, 0]));
  const isEligible = (m: string | null): m is string => m !== null && count.has(m);
  // Slots that change hands anyway: re-targeting one of them costs no extra move.
  const moving = new Set<number>();
  let assignable = 0;
  for (let s = 0; s < SLOT_COUNT; s++) {
    const p = owner[s]!;
    if (isEligible(p)) {
      count.set(p, count.get(p)! + 1);
      assignable++;
    } else if (p === null || live.has(p)) {
      moving.add(s);
      assignable++;
    }
    // else: the only copy is on a member whose lease lapsed; it keeps the slot until it returns.
  }
  const { lo, hi } = balanceBounds(assignable, eligible.length);
  const best = (s: number, cap: number): string | undefined => {
    let found: string | undefined;
    for (const m of eligible) {
      if (count.get(m)! >= cap) continue;
      if (found === undefined || weight.get(m)![s]! > weight.get(found)![s]!) found = m;
    }
    return found;
  };
  for (const s of moving) {
    const m = best(s, hi) ?? best(s, Infinity)!;
    owner[s] = m;
    count.set(m, count.get(m)! + 1);
  }
  // Fewest extra moves: always from the fullest member to the emptiest, until both are in bounds.
  for (;;) {
    let min = eligible[0]!;
    let max = eligible[0]!;
    for (const m of eligible) {
      if (count.get(m)! < count.get(min)!) min = m;
      if (count.get(m)! > count.get(max)!) max = m;
    }
    const cMin = count.get(min)!;
    const cMax = count.get(max)!;
    if ((cMin >= lo && cMax <= hi) || cMax - cMin <= 1) break;
    const slot = pickSlot(owner, max, min, moving, weight, eligible);
    owner[slot] = min;
    moving.add(slot);
    count.set(max, cMax - 1);
    count.set(min, cMin + 1);
  }
  return owner;
}

/** Which of the donor's slots goes to the receiver: one already moving, then one rendezvous gives the receiver, then the receiver's heaviest. */
function pickSlot(
  owner: (string | null)[], donor: string, receiver: string, moving: Set<number>,
  weight: Map<string, Uint32Array>, eligible: readonly string[],
): number {
  const wr = weight.get(receiver)!;
  let bestSlot = -1;
  let bestScore = -1;
  for (let s = 0; s < SLOT_COUNT; s++) {
    if (owner[s] !== donor) continue;
    let winner = eligible[0]!;
    for (const m of eligible) if (weight.get(m)![s]! > weight.get(winner)![s]!) winner = m;
    const score = (moving.has(s) ? 2 : 0) + (winner === receiver ? 1 : 0) + wr[s]! / 2 ** 32;
    if (score > bestScore) {
      bestScore = score;
      bestSlot = s;
    }
  }
  return bestSlot;
}

/** The moves that turn `map` into `target`, in slot order. */
export function planMoves(map: SlotMap, target: readonly (string | null)[]): Move[] {
  const moves: Move[] = [];
  for (const e of map) {
    const to = target[e.slot];
    if (to && to !== e.primary) moves.push({ slot: e.slot, from: e.primary, to });
  }
  return moves;
}
