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
  /** Called after every map or membership change, with the previous map. */
  readonly listeners: ((previous: SlotMap) => void)[] = [];

  private constructor(private readonly ns: Namespace) {}

  static async start(ns: Namespace): Promise<SlotView> {
    const view = new SlotView(ns);
    // The watch before the first read: a member that registers in between is in the read or
    // fires the watch. Read first, it could be in neither, and never be seen.
    view.closers.push(await watchPrefix(ns, MEMBERS_PREFIX, () => void view.refreshMembers()));
    await view.refreshMembers();
    view.closers.push(await new SlotMapStore(ns).watch(({ map }) => view.setMap(map)));
    return view;
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

  /** True once every slot has a primary that holds a live lease. */
  get complete(): boolean {
    return this.slotMap.every((e) => e.primary !== null && this.memberList.has(e.primary));
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
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve();
    }
    this.waiters.clear();
    await Promise.all(this.closers.map((c) => c.close().catch(() => undefined)));
  }
}
