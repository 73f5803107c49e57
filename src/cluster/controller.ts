// The controller (DESIGN.md §8): one shard at a time, chosen with etcd's election recipe. While it
// leads it watches members and drain marks, computes the assignment, hands never-owned slots out
// in one map transaction and runs data moves one slot at a time through the MoveRunner. Every map
// change compares the map's revision, so a deposed controller can never overwrite its successor.
import type { Campaign } from 'etcd3';
import { assignFollowers, assignPrimaries, planMoves, type Move } from './assignment.js';
import { readDrains, DRAIN_PREFIX } from './drain.js';
import type { Namespace } from './etcd.js';
import { MEMBERS_PREFIX, readMembers } from './members.js';
import { withFollowers, withPrimary, type SlotEntry, type SlotMap } from './slot-map.js';
import { SlotMapStore, type VersionedMap } from './slot-map-store.js';
import { watchPrefix } from './watch-prefix.js';

export const ELECTION_NAME = 'controller';
export const MOVES_KEY = 'moves';
const RETRY_MS = 1000;
/**
 * A fresh cluster (no slot owned yet) waits until membership has been quiet this long before the
 * first assignment, so shards started together each get their share without a single move.
 */
const FRESH_SETTLE_MS = 2000;
/** Move progress goes to etcd at most this often (status readers poll it). */
const PUBLISH_INTERVAL_MS = 250;
const SWAP_ATTEMPTS = 20;

export type MoveState = 'pending' | 'copying' | 'switching' | 'done' | 'failed';

export interface MoveStatus extends Move {
  state: MoveState;
  /** 0..1: share of the slot's snapshot and tail copied so far. */
  progress: number;
}

/**
 * Does the data part of one move; calls `switchOwner` (the map transaction) while writes to the
 * slot are paused. `keepOld`: the old primary stays as a follower (its copy matches the new one's).
 */
export interface MoveSteps {
  /** Adds the new owner as a follower of the slot (map transaction, no epoch change). */
  addFollower(): Promise<void>;
  /** The epoch switch; `keepOld`: the old primary stays as a follower. */
  switchOwner(keepOld?: boolean): Promise<void>;
}

export interface MoveRunner {
  run(move: Move, steps: MoveSteps, progress: (fraction: number) => void): Promise<void>;
  /** Where each member's copy of the slots stands (last applied entry; -1: incomplete or unknown). */
  positions?(member: string, slots: number[]): Promise<Map<number, number>>;
}

export interface ControllerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export class Controller {
  private campaign: Campaign | null = null;
  private leading = false;
  private stopped = false;
  private dirty = false;
  private running: Promise<void> | null = null;
  private watches: { close(): Promise<void> }[] = [];
  private moves: MoveStatus[] = [];
  /** The map as this controller last wrote it: the next switch tries that revision first. */
  private known: VersionedMap | null = null;
  private lastPublish = 0;
  private membersChangedAt = 0;
  private settleTimer: NodeJS.Timeout | null = null;
  readonly store: SlotMapStore;

  constructor(
    private readonly ns: Namespace,
    readonly id: string,
    private readonly ttlS: number,
    private readonly runner: MoveRunner,
    private readonly log: ControllerLog,
    /** Copies of every slot: one primary and `replicas - 1` followers. */
    private readonly replicas = 1,
  ) {
    this.store = new SlotMapStore(ns);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (this.stopped) return;
    const campaign = this.ns.election(ELECTION_NAME, this.ttlS).campaign(this.id);
    this.campaign = campaign;
    campaign.on('elected', () => void this.lead());
    campaign.on('error', (err) => {
      // Lease lost or etcd gone: step down and stand again.
      this.log.warn({ err: String(err) }, 'controller campaign failed; standing again');
      void this.stepDown().then(() => setTimeout(() => this.start(), RETRY_MS).unref());
    });
  }

  private async lead(): Promise<void> {
    if (this.stopped) return;
    this.leading = true;
    this.log.info({ controller: this.id }, 'elected controller');
    const kick = () => this.schedule();
    this.membersChangedAt = Date.now();
    const joined = () => {
      this.membersChangedAt = Date.now();
      this.schedule();
    };
    this.watches.push(await watchPrefix(this.ns, MEMBERS_PREFIX, joined), await watchPrefix(this.ns, DRAIN_PREFIX, kick));
    this.schedule();
  }

  private async stepDown(): Promise<void> {
    this.leading = false;
    const watches = this.watches;
    this.watches = [];
    await Promise.all(watches.map((w) => w.close().catch(() => undefined)));
  }

  /** Runs reconcile() again after the current pass, once per burst of changes. */
  schedule(): void {
    this.dirty = true;
    if (this.running || !this.leading) return;
    this.running = (async () => {
      while (this.dirty && this.leading && !this.stopped) {
        this.dirty = false;
        try {
          await this.reconcile();
        } catch (err) {
          this.log.warn({ err: String(err) }, 'reconcile failed; retrying');
          this.dirty = true;
          await new Promise((r) => setTimeout(r, RETRY_MS));
        }
      }
    })().finally(() => {
      this.running = null;
    });
  }

  private async reconcile(): Promise<void> {
    const members = await readMembers(this.ns);
    const drains = await readDrains(this.ns);
    const live = members.map((m) => m.id);
    const eligible = live.filter((id) => !drains.has(id));
    let { map } = (this.known = await this.store.read());
    const liveSet = new Set(live);
    // Failover first: a primary whose lease lapsed hands its slots to its most caught-up follower.
    const orphaned = map.filter((e) => e.primary !== null && !liveSet.has(e.primary) && e.followers.some((f) => liveSet.has(f)));
    if (orphaned.length > 0) {
      const next = await this.promote(map, orphaned, liveSet);
      if (next !== map && !(await this.write(next, { slots: orphaned.length }, 'promoted followers of slots whose primary left'))) return;
      map = this.known.map;
    }
    const quietFor = Date.now() - this.membersChangedAt;
    if (map.every((e) => e.primary === null) && quietFor < FRESH_SETTLE_MS) {
      if (!this.settleTimer) {
        this.settleTimer = setTimeout(() => {
          this.settleTimer = null;
          this.schedule();
        }, FRESH_SETTLE_MS - quietFor);
      }
      return;
    }
    const target = assignPrimaries({ map, eligible, live });
    const moves = planMoves(map, target);
    const fresh = moves.filter((m) => m.from === null);
    if (fresh.length > 0) {
      let next = map;
      for (const m of fresh) next = withPrimary(next, m.slot, m.to);
      if (!(await this.write(next, { slots: fresh.length }, 'assigned unowned slots'))) return;
      map = next;
    }
    // Copies: every slot keeps `replicas - 1` followers among the eligible members.
    const followers = withFollowers(map, assignFollowers(map, eligible, this.replicas));
    if (followers.changed > 0 && !(await this.write(followers.map, { slots: followers.changed }, 'assigned followers'))) return;
    const data = moves.filter((m) => m.from !== null);
    this.moves = data.map((m) => ({ ...m, state: 'pending', progress: 0 }));
    await this.publishMoves(true);
    for (const status of this.moves) {
      if (!this.leading || this.stopped || this.dirty) break;
      await this.runMove(status);
    }
    this.moves = this.moves.filter((m) => m.state !== 'done' && m.state !== 'pending');
    await this.publishMoves(true);
    if (this.moves.some((m) => m.state === 'failed')) {
      await new Promise((r) => setTimeout(r, RETRY_MS));
      this.dirty = true;
    }
  }

  private async runMove(status: MoveStatus): Promise<void> {
    status.state = 'copying';
    await this.publishMoves();
    try {
      const steps: MoveSteps = {
        addFollower: () => this.addFollower(status),
        switchOwner: (keepOld) => this.switchOwner(status, keepOld === true && this.replicas > 1),
      };
      await this.runner.run(status, steps, (p) => {
        status.progress = p;
      });
      status.state = 'done';
      status.progress = 1;
    } catch (err) {
      status.state = 'failed';
      this.log.warn({ err: String(err), slot: status.slot, from: status.from, to: status.to }, 'slot move failed');
    }
    await this.publishMoves();
  }

  /** The epoch switch: a map transaction at the revision it read, retried if another change won. */
  private async switchOwner(move: Move, keepOld: boolean): Promise<void> {
    (move as MoveStatus).state = 'switching';
    for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
      if (!this.leading) throw new Error('no longer the controller');
      const { map, revision } = attempt === 0 && this.known ? this.known : (this.known = await this.store.read());
      if (map[move.slot]!.primary !== move.from) {
        if (attempt === 0) continue;
        throw new Error(`slot ${move.slot} changed owner during the move`);
      }
      const next = withPrimary(map, move.slot, move.to, keepOld);
      const res = await this.store.swap(next, revision);
      if (res.ok) {
        this.known = { map: next, revision: res.revision };
        return;
      }
    }
    throw new Error(`slot ${move.slot}: the map kept changing`);
  }

  /** One map transaction at the revision last read; false (and another pass) if the map changed meanwhile. */
  private async write(next: SlotMap, what: object, msg: string): Promise<boolean> {
    const res = await this.store.swap(next, this.known!.revision);
    if (!res.ok) {
      this.dirty = true;
      return false;
    }
    this.known = { map: next, revision: res.revision };
    this.log.info(what, msg);
    return true;
  }

  /** The first step of a move: the new owner copies the slot as one more follower. */
  private async addFollower(move: Move): Promise<void> {
    for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
      if (!this.leading) throw new Error('no longer the controller');
      const { map, revision } = this.known && attempt === 0 ? this.known : (this.known = await this.store.read());
      const e = map[move.slot]!;
      if (e.primary !== move.from) throw new Error(`slot ${move.slot} changed owner before the move`);
      if (e.followers.includes(move.to)) return;
      const next = map.slice();
      next[move.slot] = { ...e, followers: [...e.followers, move.to] };
      const res = await this.store.swap(next, revision);
      if (res.ok) {
        this.known = { map: next, revision: res.revision };
        return;
      }
    }
    throw new Error(`slot ${move.slot}: the map kept changing`);
  }

  /** Each orphaned slot goes to its live follower with the highest applied entry; a slot with no complete copy waits. */
  private async promote(map: SlotMap, orphaned: SlotEntry[], live: Set<string>): Promise<SlotMap> {
    const asked = new Map<string, number[]>();
    for (const e of orphaned) for (const f of e.followers) if (live.has(f)) asked.set(f, [...(asked.get(f) ?? []), e.slot]);
    const positions = new Map<string, Map<number, number>>();
    await Promise.all([...asked].map(async ([member, slots]) => {
      positions.set(member, (await this.runner.positions?.(member, slots).catch(() => undefined)) ?? new Map());
    }));
    let next = map;
    for (const e of orphaned) {
      let best: string | null = null;
      let bestSeq = -1;
      for (const f of e.followers) {
        const seq = live.has(f) ? positions.get(f)?.get(e.slot) ?? -1 : -1;
        if (seq > bestSeq) {
          best = f;
          bestSeq = seq;
        }
      }
      if (best !== null) next = withPrimary(next, e.slot, best);
      else this.log.warn({ slot: e.slot, primary: e.primary }, 'no follower holds a complete copy; the slot waits for its primary');
    }
    return next;
  }

  private async publishMoves(force = false): Promise<void> {
    if (!this.leading) return;
    const now = Date.now();
    if (!force && now - this.lastPublish < PUBLISH_INTERVAL_MS) return;
    this.lastPublish = now;
    await this.ns.put(MOVES_KEY).value(JSON.stringify(this.moves.filter((m) => m.state !== 'done')));
  }

  /** Waits for the reconcile in progress, if any (tests, graceful stop). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.settleTimer) clearTimeout(this.settleTimer);
    await this.stepDown();
    const campaign = this.campaign;
    this.campaign = null;
    await this.idle().catch(() => undefined);
    if (campaign) await campaign.resign().catch(() => undefined);
  }
}

export async function readController(ns: Namespace): Promise<string | null> {
  return (await ns.election(ELECTION_NAME).leader()) ?? null;
}

export async function readMoves(ns: Namespace): Promise<MoveStatus[]> {
  const raw = await ns.get(MOVES_KEY).string();
  return raw ? (JSON.parse(raw) as MoveStatus[]) : [];
}
