// The controller (DESIGN.md §8): one shard at a time, chosen with etcd's election recipe. While it
// leads it watches members and drain marks and, each pass: fails over slots by Kafka's rules
// (failover.ts: only in-sync members are promoted, restarted or replaced members leave the in-sync
// sets first), hands never-owned slots out, places follower copies add-before-remove, and runs
// data moves, a few slots at a time, through the MoveRunner. Every map change compares the map's
// revision and the controller's election key, so a deposed controller changes nothing.
import type { Campaign } from 'etcd3';
import { assignFollowers, assignPrimaries, planMoves, type Move } from './assignment.js';
import { readDrains, DRAIN_PREFIX } from './drain.js';
import type { Namespace } from './etcd.js';
import { copiesUnsettled, failOver, followersAddFirst, needsFailover, type CopyPosition, type Membership } from './failover.js';
import { MEMBERS_PREFIX, readMembers, type MemberInfo } from './members.js';
import { addFollower, switchOwner, type MapWriter } from './move-steps.js';
import { MOVES_KEY, type MoveRunner, type MoveStatus, type MoveSteps } from './moves.js';
import { withFollowers, withPrimary, type SlotMap } from './slot-map.js';
import { SlotMapStore, type VersionedMap } from './slot-map-store.js';
import { REPLICATION_KEY, type ReplicationSettings } from './slot-view.js';
import { watchPrefix } from './watch-prefix.js';

export const ELECTION_NAME = 'controller';
/** `sessions/<id>`: the member's session and data-directory incarnation the controller last acted on. */
export const SESSIONS_PREFIX = 'sessions/';
const RETRY_MS = 1000;
/** A failover transaction lost to a shard's in-sync change is recomputed on a fresh read this often. */
const FAILOVER_ATTEMPTS = 10;
/**
 * A fresh cluster (no slot owned yet) waits until membership has been quiet this long before the
 * first assignment, so shards started together each get their share without a single move.
 */
const FRESH_SETTLE_MS = 2000;
/**
 * Slot moves run one at a time. A slot's write pause (freeze → release, DESIGN §8: at most 100 ms)
 * is four calls and an etcd transaction, each slowed by whatever else the shards do: with 4 moves
 * copying beside it the pause was p50 94-100 ms (`npm run bench:reshard -- --quick`, 3 → 4 shards,
 * 244 slots), with 2 55 ms, with 1 41-42 ms; the rebalance took 13 s, 14 s and 18-20 s.
 */
const MOVE_CONCURRENCY = 1;
/** Move progress goes to etcd at most this often (status readers poll it). */
const PUBLISH_INTERVAL_MS = 250;

export interface ControllerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Configured copies and minimum in sync; null: the defaults of DESIGN.md §8. */
export interface ReplicationConfig {
  readonly replicas: number | null;
  readonly minInsync: number | null;
}

interface Session {
  readonly session?: string;
  readonly incarnation?: string;
}

export class Controller implements MapWriter {
  private campaign: Campaign | null = null;
  private leading = false;
  private stopped = false;
  private dirty = false;
  /** Members or drain marks changed since the pass began: moves give way to the next pass. */
  private urgent = false;
  private running: Promise<void> | null = null;
  private watches: { close(): Promise<void> }[] = [];
  private moves: MoveStatus[] = [];
  /** The map as this controller last wrote it: the next switch tries that revision first. */
  known: VersionedMap | null = null;
  electionKey: string | undefined;
  private lastPublish = 0;
  /** A publish the interval held back, due when it ends. */
  private publishTimer: NodeJS.Timeout | null = null;
  private membersChangedAt = 0;
  private settleTimer: NodeJS.Timeout | null = null;
  /** Ends the rest of a pass that waits to look at the copies again. */
  private wakeUp: (() => void) | null = null;
  private settings: ReplicationSettings | null = null;
  private readonly config: ReplicationConfig;
  readonly store: SlotMapStore;

  constructor(
    private readonly ns: Namespace,
    readonly id: string,
    private readonly ttlS: number,
    private readonly runner: MoveRunner,
    private readonly log: ControllerLog,
    /** Copies of every slot (a number: exactly that many, minimum in sync the default). */
    replication: ReplicationConfig | number = 1,
  ) {
    this.store = new SlotMapStore(ns);
    this.config = typeof replication === 'number' ? { replicas: replication, minInsync: null } : replication;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (this.stopped) return;
    const campaign = this.ns.election(ELECTION_NAME, this.ttlS).campaign(this.id);
    this.campaign = campaign;
    campaign.on('elected', () => void this.lead(campaign));
    campaign.on('error', (err) => {
      // Lease lost or etcd gone: step down and stand again.
      if (this.campaign !== campaign) return;
      this.log.warn({ err: String(err) }, 'controller campaign failed; standing again');
      this.standAgain(campaign);
    });
  }

  /**
   * Gives `campaign` up and stands again a second later. etcd3 goes on waiting for the campaign's
   * predecessor after its lease is lost, and then announces 'elected' for a key that no longer
   * exists: a second controller beside the real one, whose moves froze slots it could not switch.
   * The abandoned campaign is resigned, and its announcements are ignored.
   */
  private standAgain(campaign: Campaign): void {
    if (this.campaign !== campaign) return;
    this.campaign = null;
    void campaign.resign().catch(() => undefined);
    void this.stepDown().then(() => setTimeout(() => this.start(), RETRY_MS).unref());
  }

  /** True while this controller's election key exists in etcd (what every map transaction compares). */
  private async holdsKey(): Promise<boolean> {
    if (this.electionKey === undefined) return false;
    return (await this.ns.get(this.electionKey).string().catch(() => null)) !== null;
  }

  async stillLeads(): Promise<boolean> {
    if (!this.leading) return false;
    if (await this.holdsKey()) return true;
    this.log.warn({ controller: this.id }, 'no longer holds the controller key; standing again');
    if (this.campaign) this.standAgain(this.campaign);
    else this.leading = false;
    return false;
  }

  private async lead(campaign: Campaign): Promise<void> {
    if (this.stopped || this.campaign !== campaign) return;
    const key = await campaign.getCampaignKey().catch(() => undefined);
    const prefix = (this.ns as unknown as { prefix: Buffer }).prefix.toString();
    this.electionKey = key?.startsWith(prefix) ? key.slice(prefix.length) : undefined;
    if (!(await this.holdsKey())) {
      this.log.warn({ controller: this.id }, 'elected on a campaign key that is gone; standing again');
      this.standAgain(campaign);
      return;
    }
    if (this.stopped || this.campaign !== campaign) return;
    this.leading = true;
    this.log.info({ controller: this.id }, 'elected controller');
    const kick = () => {
      this.urgent = true;
      this.schedule();
      // A pass resting before it looks at the copies again looks now (a failover waits for nothing).
      this.wakeUp?.();
    };
    this.membersChangedAt = Date.now();
    const joined = () => {
      this.membersChangedAt = Date.now();
      kick();
    };
    const watches = [await watchPrefix(this.ns, MEMBERS_PREFIX, joined), await watchPrefix(this.ns, DRAIN_PREFIX, kick)];
    // Stopped or stepped down while the watches were made: nothing closes them later, so here (a
    // watch left open retries forever, and kept a stopped controller's process alive).
    if (this.stopped || this.campaign !== campaign || !this.leading) return closeAll(watches);
    this.watches.push(...watches);
    this.schedule();
  }

  private async stepDown(): Promise<void> {
    this.leading = false;
    if (this.publishTimer) clearTimeout(this.publishTimer);
    this.publishTimer = null;
    const watches = this.watches;
    this.watches = [];
    await closeAll(watches);
  }

  /** Waits `ms`, or less if membership or a drain mark changes meanwhile. */
  private nap(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeUp === done) this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms).unref();
      this.wakeUp = done;
    });
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
          await this.nap(RETRY_MS);
        }
      }
    })().finally(() => {
      this.running = null;
    });
  }

  private async reconcile(): Promise<void> {
    this.urgent = false;
    const [members, drains, sessions] = await Promise.all([readMembers(this.ns), readDrains(this.ns), this.readSessions()]);
    const live = members.map((m) => m.id);
    const eligible = live.filter((id) => !drains.has(id));
    let { map } = (this.known = await this.store.read());
    const replicas = await this.publishSettings(eligible.length);
    // Failover first: gone, restarted and replaced members leave the in-sync sets; their slots get an in-sync member.
    const membership = this.membership(members, sessions);
    const renewed = members.filter((m) => membership.renewed.has(m.id) || membership.reborn.has(m.id));
    if (needsFailover(map, membership).length > 0 || renewed.length > 0) {
      const also = Object.fromEntries(renewed.map((m) => [`${SESSIONS_PREFIX}${m.id}`, JSON.stringify({ session: m.session, incarnation: m.incarnation })]));
      const positions = new Map<string, Map<number, CopyPosition>>();
      // Shards change in-sync sets meanwhile: the rules are applied again to a fresh read until one lands.
      let landed = false;
      for (let attempt = 0; attempt < FAILOVER_ATTEMPTS && !landed && this.leading; attempt++) {
        if (attempt > 0) map = (this.known = await this.store.read()).map;
        const failing = needsFailover(map, membership);
        const next = failing.length > 0 ? await this.failOver(map, failing, membership, positions) : map;
        landed = await this.write(next, { slots: failing.length, renewed: renewed.map((m) => m.id) }, 'failed over slots by the in-sync sets', also);
      }
      if (!landed) return;
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
    // Copies: every slot keeps `replicas - 1` followers among the eligible members, added before any is removed.
    const liveSet = new Set(live);
    const followers = withFollowers(map, followersAddFirst(map, assignFollowers(map, eligible, replicas), target, liveSet));
    if (followers.changed > 0 && !(await this.write(followers.map, { slots: followers.changed }, 'placed follower copies'))) return;
    map = this.known.map;
    const data = moves.filter((m) => m.from !== null && liveSet.has(m.from) && map[m.slot]!.primary === m.from);
    this.moves = data.map((m) => ({ ...m, state: 'pending', progress: 0 }));
    await this.publishMoves(true);
    // MOVE_CONCURRENCY at once (one: see there); each pauses only its own slot.
    let next = 0;
    const mover = async () => {
      while (next < this.moves.length) {
        // A membership or drain change (a failover may wait) comes first; a lost race with a shard's in-sync change does not.
        if (!this.leading || this.stopped || this.urgent) return;
        await this.runMove(this.moves[next++]!);
      }
    };
    await Promise.all(Array.from({ length: MOVE_CONCURRENCY }, mover));
    this.moves = this.moves.filter((m) => m.state !== 'done' && m.state !== 'pending');
    await this.publishMoves(true);
    // A failed move, a copy still joining its in-sync set, a slot waiting for an in-sync member, an
    // extra copy a move left (the old primary kept as a follower) to drop: look again soon. Shards'
    // in-sync changes do not wake the controller, so this pass is what comes back for them.
    const now = this.known.map;
    const waiting = copiesUnsettled(now, assignFollowers(now, eligible, replicas), target, liveSet);
    if (this.moves.some((m) => m.state === 'failed') || waiting) {
      await this.nap(RETRY_MS);
      this.dirty = true;
    }
  }

  private membership(members: MemberInfo[], sessions: Map<string, Session>): Membership {
    const renewed = new Set<string>();
    const reborn = new Set<string>();
    for (const m of members) {
      const known = sessions.get(m.id);
      if (m.session !== undefined && known?.session !== m.session) renewed.add(m.id);
      if (known?.incarnation !== undefined && m.incarnation !== undefined && known.incarnation !== m.incarnation) reborn.add(m.id);
    }
    return { live: new Set(members.map((m) => m.id)), renewed, reborn };
  }

  /** The failover rules over the slots that need them, with the candidates' positions asked first. */
  private async failOver(map: SlotMap, failing: { slot: number; candidates: string[] }[], membership: Membership, positions: Map<string, Map<number, CopyPosition>>): Promise<SlotMap> {
    const asked = new Map<string, number[]>();
    for (const { slot, candidates } of failing) {
      if (candidates.length > 1) for (const c of candidates) if (!positions.get(c)?.has(slot)) asked.set(c, [...(asked.get(c) ?? []), slot]);
    }
    await Promise.all([...asked].map(async ([member, slots]) => {
      const found = (await this.runner.positions?.(member, slots).catch(() => undefined)) ?? new Map<number, CopyPosition>();
      const known = positions.get(member) ?? new Map<number, CopyPosition>();
      for (const [slot, p] of found) known.set(slot, p);
      positions.set(member, known);
    }));
    const next = map.slice();
    for (const { slot } of failing) {
      next[slot] = failOver(map[slot]!, membership, (m) => positions.get(m)?.get(slot));
      if (next[slot]!.primary !== null && !next[slot]!.isr.includes(next[slot]!.primary!)) {
        this.log.warn({ slot, isr: next[slot]!.isr }, 'no live in-sync copy; the slot is unavailable until one returns');
      }
    }
    return next;
  }

  /** Copies per slot and the minimum in sync, published for the shards (DESIGN.md §8 defaults). */
  private async publishSettings(shards: number): Promise<number> {
    if (!this.settings) {
      const raw = await this.ns.get(REPLICATION_KEY).string();
      this.settings = raw ? (JSON.parse(raw) as ReplicationSettings) : null;
    }
    // Unset: 3 where there are three or more shards, else the number of shards; never lowered by a
    // shard that died (its copies are what the minimum protects).
    const replicas = this.config.replicas ?? Math.min(3, Math.max(this.settings?.replicas ?? 1, shards));
    const minInsync = Math.min(replicas, this.config.minInsync ?? (replicas >= 2 ? 2 : 1));
    if (this.settings?.replicas !== replicas || this.settings.min_insync !== minInsync) {
      this.settings = { replicas, min_insync: minInsync };
      await this.ns.put(REPLICATION_KEY).value(JSON.stringify(this.settings));
    }
    return replicas;
  }

  private async readSessions(): Promise<Map<string, Session>> {
    const all = await this.ns.getAll().prefix(SESSIONS_PREFIX).strings();
    return new Map(Object.entries(all).map(([k, v]) => [k.slice(SESSIONS_PREFIX.length), JSON.parse(v) as Session]));
  }

  private async runMove(status: MoveStatus): Promise<void> {
    status.state = 'copying';
    await this.publishMoves();
    try {
      const steps: MoveSteps = {
        addFollower: () => addFollower(this, status),
        abandoned: () => this.urgent || !this.leading || this.stopped,
        switchOwner: (keepOld) => {
          status.state = 'switching';
          return switchOwner(this, status, keepOld === true && (this.settings?.replicas ?? 1) > 1);
        },
      };
      await this.runner.run(status, steps, (p) => {
        status.progress = p;
      });
      status.state = 'done';
      status.progress = 1;
    } catch (err) {
      status.state = 'failed';
      this.log.warn({ err: String(err), slot: status.slot, from: status.from, to: status.to }, 'slot move failed; it is tried again');
    }
    await this.publishMoves();
  }

  /** One map transaction at the revision last read; false (and another pass) if the map changed meanwhile. */
  private async write(next: SlotMap, what: object, msg: string, also: Record<string, string> = {}): Promise<boolean> {
    const res = await this.store.swap(next, this.known!.revision, this.electionKey, also);
    if (!res.ok) {
      // Lost to another writer (another pass follows), or deposed: then nothing this one does can land.
      if (await this.stillLeads()) this.dirty = true;
      return false;
    }
    this.known = { map: next, revision: res.revision };
    this.log.info(what, msg);
    return true;
  }

  private async publishMoves(force = false): Promise<void> {
    if (!this.leading) return;
    const wait = PUBLISH_INTERVAL_MS - (Date.now() - this.lastPublish);
    if (!force && wait > 0) {
      // Held back, not dropped: the state is published when the interval ends. Moves one at a time
      // otherwise published only as one ended (and the next was still pending), so status never
      // showed a move in progress.
      this.publishTimer ??= setTimeout(() => {
        this.publishTimer = null;
        this.publishMoves().catch((err: unknown) => this.log.warn({ err: String(err) }, 'could not publish the moves'));
      }, wait).unref();
      return;
    }
    if (this.publishTimer) clearTimeout(this.publishTimer);
    this.publishTimer = null;
    this.lastPublish = Date.now();
    await this.ns.put(MOVES_KEY).value(JSON.stringify(this.moves.filter((m) => m.state !== 'done')));
  }

  /** Waits for the reconcile in progress, if any (tests, graceful stop). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.wakeUp?.();
    await this.stepDown();
    const campaign = this.campaign;
    this.campaign = null;
    await this.idle().catch(() => undefined);
    if (campaign) await campaign.resign().catch(() => undefined);
  }
}

/** Closes etcd watches; one that fails to close is already gone. */
async function closeAll(watches: { close(): Promise<void> }[]): Promise<void> {
  await Promise.all(watches.map((w) => w.close().catch(() => undefined)));
}

export async function readController(ns: Namespace): Promise<string | null> {
  return (await ns.election(ELECTION_NAME).leader()) ?? null;
}
