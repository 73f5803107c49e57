// `mailcue admin cluster status`: one document read from etcd, in the shape DESIGN.md §8 gives.
import { readController, readMoves, type MoveStatus } from './controller.js';
import { readDrains } from './drain.js';
import type { Namespace } from './etcd.js';
import { readLag } from './lag-report.js';
import { readMembers, type MemberState } from './members.js';
import { SlotMapStore } from './slot-map-store.js';
import { SLOT_COUNT } from './slots.js';

export interface ClusterStatus {
  slots: number;
  replicas: number;
  controller: string | null;
  members: { id: string; address: string; state: MemberState; primaries: number; followers: number; max_lag: number }[];
  moves: { slot: number; from: string | null; to: string; state: MoveStatus['state']; progress: number }[];
  map: { slot: number; primary: string | null; followers: string[]; epoch: number }[];
}

export async function readClusterStatus(ns: Namespace, replicas: number): Promise<ClusterStatus> {
  const [members, drains, controller, moves, { map }] = await Promise.all([
    readMembers(ns), readDrains(ns), readController(ns), readMoves(ns), new SlotMapStore(ns).read(),
  ]);
  const lag = await readLag(ns, new Set(members.map((m) => m.id)));
  return {
    slots: SLOT_COUNT,
    replicas,
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
    map: map.map((e) => ({ slot: e.slot, primary: e.primary, followers: [...e.followers], epoch: e.epoch })),
  };
}

/** The human form: members with their slot counts, then moves in progress. */
export function formatClusterStatus(s: ClusterStatus): string {
  const lines = [`slots ${s.slots}  replicas ${s.replicas}  controller ${s.controller ?? '(none)'}`, '', 'MEMBER  ADDRESS  STATE  PRIMARIES  FOLLOWERS  MAX_LAG'];
  for (const m of s.members) lines.push([m.id, m.address, m.state, m.primaries, m.followers, m.max_lag].join('  '));
  const unowned = s.map.filter((e) => e.primary === null).length;
  if (unowned > 0) lines.push('', `${unowned} slots have no primary yet`);
  lines.push('', s.moves.length === 0 ? 'no moves in progress' : 'SLOT  FROM  TO  STATE  PROGRESS');
  for (const m of s.moves) lines.push([m.slot, m.from ?? '-', m.to, m.state, `${Math.round(m.progress * 100)}%`].join('  '));
  return lines.join('\n');
}
