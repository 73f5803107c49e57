// A process's live view of the cluster: the slot map and the members, kept current by etcd
// watches. Fronts route by it; shards fence commands with it. Waiters ask to be told when a slot's
// epoch passes a value (a `moved` answer names a newer owner the watch has not shown yet).
import type { Namespace } from './etcd.js';
import { MEMBERS_PREFIX, readMembers, type MemberInfo } from './members.js';
import { emptySlotMap, type SlotEntry, type SlotMap } from './slot-map.js';
import { SlotMapStore } from './slot-map-store.js';
import { watchPrefix } from './watch-prefix.js';

/** A failed read of the members is tried again this long after. */
const MEMBERS_RETRY_MS = 1_000;
/** The controller's replication settings (DESIGN.md §8): copies per slot and the minimum in sync. */
export const REPLICATION_KEY = 'replication';

export interface ReplicationSettings {
  readonly replicas: number;
  readonly min_insync: number;
}

interface EpochWaiter {
  slot: number;
  after: number;
  resolve(): void;
  timer: NodeJS.Timeout;
}

export class SlotView {
  private slotMap: SlotMap = emptySlotMap();
  private memberList = new Map<string, MemberInfo>();
  private waiters = new Set<EpochWaiter>();
  private closers: { close(): Promise<void> }[] = [];
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private closed = false;
  /** performance.now() of the last answer from etcd (a watch event or the heartbeat read). */
  private heardAt = performance.now();
  private heartbeat: NodeJS.Timeout | null = null;
  /** The controller's replication settings, as last read (null before any was published). */
  replication: ReplicationSettings | null = null;
  /** Called after every map or membership change, with the previous map. */
  readonly listeners: ((previous: SlotMap) => void)[] = [];

  private constructor(private readonly ns: Namespace, private readonly ttlMs: number) {}

  /**
   * `ttlS`: the lease TTL. The view reads etcd every third of it; a view that has not heard from
   * etcd for a whole TTL is stale (fronts then route nothing by it, DESIGN.md §8 "Leases fence").
   */
  static async start(ns: Namespace, ttlS = 5): Promise<SlotView> {
    const view = new SlotView(ns, ttlS * 1000);
    await view.beat();
    view.heartbeat = setInterval(() => void view.beat(), view.ttlMs / 3);
    view.heartbeat.unref();
    // The watch before the first read: a member that registers in between is in the read or
    // fires the watch. Read first, it could be in neither, and never be seen.
    view.closers.push(await watchPrefix(ns, MEMBERS_PREFIX, () => void view.refreshMembers()));
    await view.refreshMembers();
    view.closers.push(await new SlotMapStore(ns).watch(({ map }) => view.setMap(map)));
    return view;
  }

  /** True when etcd has not answered for a whole lease TTL: the map may be out of date. */
  get stale(): boolean {
    return performance.now() - this.heardAt > this.ttlMs;
  }

  private async beat(): Promise<void> {
    try {
      const text = await this.ns.get(REPLICATION_KEY).string();
      this.replication = text ? (JSON.parse(text) as ReplicationSettings) : null;
      this.heardAt = performance.now();
    } catch {
      /* stale until etcd answers again */
    }
  }

  get map(): SlotMap {
    return this.slotMap;
  }

  entry(slot: number): SlotEntry {
    return this.slotMap[slot]!;
  }

  member(id: string): MemberInfo | undefined {
    return this.memberList.get(id);
  }

  members(): MemberInfo[] {
    return [...this.memberList.values()];
  }

  /** True once every slot has a primary that holds a live lease and the minimum in-sync copies. */
  get complete(): boolean {
    const min = this.replication?.min_insync ?? 1;
    return this.slotMap.every((e) => e.primary !== null && this.memberList.has(e.primary) && e.isr.length >= min);
  }

  /** The minimum in-sync copies a write needs: the controller's setting, else what `replicas` implies. */
  minInsync(fallback: number): number {
    return this.replication?.min_insync ?? fallback;
  }

  /** Resolves once the slot's epoch exceeds `after`, or after `timeoutMs` (the caller re-checks). */
  epochAfter(slot: number, after: number, timeoutMs: number): Promise<void> {
    if (this.slotMap[slot]!.epoch > after) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: EpochWaiter = {
        slot, after, resolve,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve();
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  private setMap(map: SlotMap): void {
    this.heardAt = performance.now();
    const previous = this.slotMap;
    this.slotMap = map;
    for (const w of this.waiters) {
      if (map[w.slot]!.epoch <= w.after) continue;
      this.waiters.delete(w);
      clearTimeout(w.timer);
      w.resolve();
    }
    for (const l of this.listeners) l(previous);
  }

  /**
   * Re-reads the members. One read at a time, and a change during a read makes one more, so the
   * list kept is from a read that began after the last change (an older, slower read never lands
   * last). A failed read is tried again a second later instead of leaving the list stale.
   */
  private refreshMembers(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        try {
          const members = await readMembers(this.ns);
          this.memberList = new Map(members.map((m) => [m.id, m]));
          for (const l of this.listeners) l(this.slotMap);
        } catch {
          if (this.closed) break;
          await new Promise((r) => setTimeout(r, MEMBERS_RETRY_MS).unref());
          this.readAgain = true;
        }
      } while (this.readAgain && !this.closed);
      this.reading = null;
    })();
    return this.reading;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve();
    }
    this.waiters.clear();
    await Promise.all(this.closers.map((c) => c.close().catch(() => undefined)));
  }
}
