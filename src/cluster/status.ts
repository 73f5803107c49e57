// `mailcue admin cluster status`: one document read from etcd, in the shape DESIGN.md §8 gives,
// with each map entry's in-sync set (`isr`) and the slots below their minimum in sync.
import { readController } from './controller.js';
import { readMoves, type MoveStatus } from './moves.js';
import { readDrains } from './drain.js';
import type { Namespace } from './etcd.js';
import { readLag } from './lag-report.js';
import { readMembers, type MemberState } from './members.js';
import { SlotMapStore } from './slot-map-store.js';
import { REPLICATION_KEY, type ReplicationSettings } from './slot-view.js';
import { SLOT_COUNT } from './slots.js';

export interface ClusterStatus {
  slots: number;
  replicas: number;
  /** Writes to a slot need this many in-sync copies. */
  min_insync: number;
  controller: string | null;
  members: { id: string; address: string; state: MemberState; primaries: number; followers: number; max_lag: number }[];
  moves: { slot: number; from: string | null; to: string; state: MoveStatus['state']; progress: number }[];
  map: { slot: number; primary: string | null; followers: string[]; epoch: number; isr: string[] }[];
  /** Slots whose in-sync set is smaller than `min_insync` (writes answer 451/503), and those with no live in-sync copy (unavailable). */
  below_min: number[];
  unavailable: number[];
}

export async function readClusterStatus(ns: Namespace, replicas: number | null): Promise<ClusterStatus> {
  const [members, drains, controller, moves, { map }, settingsText] = await Promise.all([
    readMembers(ns), readDrains(ns), readController(ns), readMoves(ns), new SlotMapStore(ns).read(), ns.get(REPLICATION_KEY).string(),
  ]);
  const settings = settingsText ? (JSON.parse(settingsText) as ReplicationSettings) : null;
  const live = new Set(members.map((m) => m.id));
  const lag = await readLag(ns, live);
  const minInsync = settings?.min_insync ?? 1;
  return {
    slots: SLOT_COUNT,
    replicas: settings?.replicas ?? replicas ?? Math.min(3, Math.max(1, members.length)),
    min_insync: minInsync,
    controller,
    members: members.map((m) => ({
      id: m.id,
      address: m.address,
      state: drains.has(m.id) ? 'draining' : lag.get(m.id) === -1 ? 'catching_up' : m.state,
      primaries: map.filter((e) => e.primary === m.id).length,
      followers: map.filter((e) => e.followers.includes(m.id)).length,
      // Oplog entries its most lagging copy is behind (a copy being made counts as -1 in `lag`, shown as catching_up).
      max_lag: Math.max(0, lag.get(m.id) ?? 0),
    })),
    moves: moves.map(({ slot, from, to, state, progress }) => ({ slot, from, to, state, progress })),
    map: map.map((e) => ({ slot: e.slot, primary: e.primary, followers: [...e.followers], epoch: e.epoch, isr: [...e.isr] })),
    below_min: map.filter((e) => e.primary !== null && e.isr.length < minInsync).map((e) => e.slot),
    unavailable: map.filter((e) => e.primary !== null && !(live.has(e.primary) && e.isr.includes(e.primary))).map((e) => e.slot),
  };
}

/** The human form: members with their slot counts, the slots short of copies, then moves in progress. */
export function formatClusterStatus(s: ClusterStatus): string {
  const lines = [`slots ${s.slots}  replicas ${s.replicas}  min in sync ${s.min_insync}  controller ${s.controller ?? '(none)'}`, '', 'MEMBER  ADDRESS  STATE  PRIMARIES  FOLLOWERS  MAX_LAG'];
  for (const m of s.members) lines.push([m.id, m.address, m.state, m.primaries, m.followers, m.max_lag].join('  '));
  const unowned = s.map.filter((e) => e.primary === null).length;
  if (unowned > 0) lines.push('', `${unowned} slots have no primary yet`);
  if (s.unavailable.length > 0) lines.push('', `${s.unavailable.length} slots unavailable (no live in-sync copy): ${brief(s.unavailable)}`);
  if (s.below_min.length > 0) lines.push('', `${s.below_min.length} slots below ${s.min_insync} in-sync copies (writes refused): ${brief(s.below_min)}`);
  if (s.unavailable.length === 0 && s.below_min.length === 0) lines.push('', 'every slot has its minimum in-sync copies');
  lines.push('', s.moves.length === 0 ? 'no moves in progress' : 'SLOT  FROM  TO  STATE  PROGRESS');
  for (const m of s.moves) lines.push([m.slot, m.from ?? '-', m.to, m.state, `${Math.round(m.progress * 100)}%`].join('  '));
  return lines.join('\n');
}

function brief(slots: number[]): string {
  return slots.length <= 20 ? slots.join(', ') : `${slots.slice(0, 20).join(', ')}, …`;
}
