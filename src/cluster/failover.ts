// Failover by Kafka's rules (DESIGN.md §8 "Failover and fencing"), as pure functions over the map.
// A member that is gone (no lease) or began a new session (restarted, or its lease was granted
// again) leaves every in-sync set; a slot whose primary is gone, restarted or out of sync gets the
// in-sync member with the highest (epoch, seq), at the next epoch. The last in-sync member of a
// slot stays in its set even while gone (it alone holds every acknowledged entry): the slot waits
// for it, and when it comes back on the same data directory it serves again. A member whose data
// directory changed (its incarnation) holds nothing: it leaves every set, last or not. A copy
// outside the set is never promoted, so a slot with no live in-sync member stays unavailable.
import { rendezvousWeight } from './assignment.js';
import { sortIsr, type SlotEntry, type SlotMap } from './slot-map.js';

export interface Membership {
  /** Members holding a live lease. */
  readonly live: ReadonlySet<string>;
  /** Live members whose session is new since the controller last looked: what they held in sync is doubted. */
  readonly renewed: ReadonlySet<string>;
  /** Members whose data directory is not the one registered before (empty, replaced). */
  readonly reborn: ReadonlySet<string>;
}

export interface CopyPosition {
  readonly epoch: number;
  readonly seq: number;
}

/** Slots whose entry the rules change, with the members whose positions decide a promotion. */
export function needsFailover(map: SlotMap, m: Membership): { slot: number; candidates: string[] }[] {
  const out: { slot: number; candidates: string[] }[] = [];
  for (const e of map) {
    if (e.primary === null) continue;
    const next = failOver(e, m, () => undefined);
    if (next !== e) out.push({ slot: e.slot, candidates: candidates(e, m) });
  }
  return out;
}

/** The members that may serve the slot next: in sync and live, or (if none) the last in-sync ones still live. */
function candidates(e: SlotEntry, m: Membership): string[] {
  const isr = e.isr.filter((id) => !m.reborn.has(id));
  const sound = isr.filter((id) => m.live.has(id) && !m.renewed.has(id));
  if (sound.length > 0) return sound;
  // No member kept its session: one that came back on the same data directory holds every acknowledged entry.
  return isr.filter((id) => m.live.has(id));
}

/**
 * The slot's entry under the rules; the same object when nothing changes. `position` tells where a
 * candidate's copy stands (undefined: unknown, ranked last).
 */
export function failOver(e: SlotEntry, m: Membership, position: (member: string) => CopyPosition | undefined): SlotEntry {
  if (e.primary === null) return e;
  const isr = e.isr.filter((id) => !m.reborn.has(id));
  const next = candidates(e, m);
  if (next.length === 0) {
    // Nobody live holds every acknowledged entry: the slot waits (never an unclean election).
    return sameList(isr, e.isr) ? e : { ...e, isr: sortIsr(e.primary, isr) };
  }
  const primaryStays = next.includes(e.primary) && !m.renewed.has(e.primary);
  if (primaryStays) {
    return sameList(sortIsr(e.primary, next), e.isr) ? e : { ...e, isr: sortIsr(e.primary, next) };
  }
  const best = rank(e.slot, next, position)[0]!;
  return {
    slot: e.slot,
    primary: best,
    followers: e.followers.filter((f) => f !== best && f !== e.primary),
    epoch: e.epoch + 1,
    isr: sortIsr(best, next),
  };
}

/**
 * Highest (epoch, seq) first; unknown positions last; ties by the slot's rendezvous weight (then
 * id), so every controller picks the same and a dead member's slots spread over the survivors as
 * assignment would place them (by id, all went to one member, and hundreds of moves followed).
 */
function rank(slot: number, members: string[], position: (member: string) => CopyPosition | undefined): string[] {
  const key = (id: string) => position(id) ?? { epoch: -1, seq: -1 };
  return [...members].sort((a, b) => {
    const pa = key(a);
    const pb = key(b);
    return pb.epoch - pa.epoch || pb.seq - pa.seq || rendezvousWeight(b, slot) - rendezvousWeight(a, slot) || a.localeCompare(b);
  });
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Follower lists, add before remove (DESIGN.md §8): a slot gets the followers it should have
 * (`want`), and keeps each old follower that is live and in sync until every wanted one is in the
 * in-sync set too. The member a move hands the slot to (`target`) is a follower meanwhile.
 */
export function followersAddFirst(map: SlotMap, want: readonly (readonly string[])[], target: readonly (string | null)[], live: ReadonlySet<string>): (readonly string[])[] {
  return map.map((e) => {
    if (e.primary === null) return e.followers;
    const wanted = [...want[e.slot]!];
    const to = target[e.slot];
    if (to && to !== e.primary && !wanted.includes(to)) wanted.push(to);
    const ready = wanted.every((f) => e.isr.includes(f));
    const kept = ready ? [] : e.followers.filter((f) => !wanted.includes(f) && e.isr.includes(f) && live.has(f));
    return [...wanted, ...kept];
  });
}

/**
 * Does the controller have to look at the copies again (another pass)? Yes while a slot's primary
 * or a follower is outside its in-sync set (a copy still being made, a slot waiting for an in-sync
 * member), and while followersAddFirst would still change a follower list: a copy to add, or an
 * extra one to drop now that its replacement is in sync (a move keeps the old primary as a follower).
 */
export function copiesUnsettled(map: SlotMap, want: readonly (readonly string[])[], target: readonly (string | null)[], live: ReadonlySet<string>): boolean {
  const next = followersAddFirst(map, want, target, live);
  return map.some((e, slot) => {
    if (e.primary === null) return false;
    if (!e.isr.includes(e.primary) || e.followers.some((f) => !e.isr.includes(f))) return true;
    const f = next[slot]!;
    return f.length !== e.followers.length || f.some((m, i) => m !== e.followers[i]);
  });
}
