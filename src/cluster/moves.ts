// A slot move as the controller runs it (DESIGN.md §8 "Resharding") and publishes it under
// `moves` for `admin cluster status`: its state and progress, the map steps the MoveRunner (the
// shard that copies the data) is given, and what the runner answers.
import type { Move } from './assignment.js';
import type { Namespace } from './etcd.js';
import type { CopyPosition } from './failover.js';

export const MOVES_KEY = 'moves';

export type MoveState = 'pending' | 'copying' | 'switching' | 'done' | 'failed';

export interface MoveStatus extends Move {
  state: MoveState;
  /** 0..1: share of the slot's snapshot and tail copied so far. */
  progress: number;
}

/** The map steps of one move, for the MoveRunner. */
export interface MoveSteps {
  /** Adds the new owner as a follower of the slot (map transaction, no epoch change). */
  addFollower(): Promise<void>;
  /** The epoch switch (the new owner must be in the in-sync set); `keepOld`: the old primary stays a follower. */
  switchOwner(keepOld?: boolean): Promise<void>;
  /** True when the controller has more urgent work (a failover): a move still copying gives up, to be retried. */
  abandoned?(): boolean;
}

export interface MoveRunner {
  run(move: Move, steps: MoveSteps, progress: (fraction: number) => void): Promise<void>;
  /** Where each member's copy of the slots stands (a promotion picks the highest (epoch, seq)). */
  positions?(member: string, slots: number[]): Promise<Map<number, CopyPosition>>;
}

export async function readMoves(ns: Namespace): Promise<MoveStatus[]> {
  const raw = await ns.get(MOVES_KEY).string();
  return raw ? (JSON.parse(raw) as MoveStatus[]) : [];
}
