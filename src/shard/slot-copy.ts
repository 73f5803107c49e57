// One follower's copy of one slot as its primary tracks it (follower-link.ts), and what the copy
// maker (copy-sync.ts) needs of the link that owns it: kept apart so neither imports the other.
import type { ShardClient } from '../rpc/shard-client.js';
import type { ShardStore } from '../storage/shard-store.js';
import type { LeaderEpochs } from './leader-epochs.js';

/** Bounded stream messages (DESIGN.md §7). */
export const BATCH_BYTES = 1024 * 1024;

export type CopyState = 'unknown' | 'syncing' | 'streaming';
export type InSync = 'out' | 'joining' | 'in';

export interface SlotCopy {
  state: CopyState;
  /** The primary's epoch the copy is made at. */
  readonly epoch: number;
  /** The last entry the follower applied. */
  acked: number;
  /** Where the copy stands with the slot's in-sync set. */
  isr: InSync;
  /** A joining copy joins once it applied this entry (everything logged before it began joining). */
  joinAt: number;
  /** A map transaction for this copy is in flight. */
  busy: boolean;
}

/** The link a copy belongs to, as the copy maker sees it. */
export interface CopyOwner {
  readonly copies: Map<number, SlotCopy>;
  readonly isClosed: boolean;
  /** The last call failed: nothing is streamed until a copy is synced again. */
  down: boolean;
  readonly client: ShardClient;
  readonly ctx: { readonly store: ShardStore; readonly epochs: LeaderEpochs };
  fail(err: unknown): void;
  /** A copy became current: it streams, and joins the set once caught up. */
  streaming(slot: number, copy: SlotCopy): void;
}
