// The controller's MoveRunner over gRPC (DESIGN.md §8 "Resharding"): the new owner first becomes
// a follower of the slot (the primary's replicator sends it a snapshot, then the oplog tail), and
// once its copy is caught up the slot is frozen on the giver, the follower applies the last
// entries, the map switches (epoch + 1) and the giver releases. Writes to the slot wait only
// between freeze and release.
import type { Move } from '../cluster/assignment.js';
import type { MoveRunner, MoveSteps } from '../cluster/moves.js';
import type { SlotView } from '../cluster/slot-view.js';
import { MemberClients } from '../rpc/member-clients.js';
import type { ShardClient } from '../rpc/shard-client.js';
import type { TlsMaterial } from '../rpc/tls.js';

const CALL_TIMEOUT_MS = 30_000;
/** How long a new follower may take to copy one slot before the move is given up (and retried). */
const CATCH_UP_MS = 120_000;
/** Entries the copy may still lag by when the slot is frozen; the rest follow during the pause. */
const FREEZE_LAG = 16;
/** How long the frozen slot waits for the follower's last entries. */
const FINAL_APPLY_MS = 2_000;
const POLL_MS = 20;
/** A failover does not wait longer for a candidate's positions (unknown ones rank last). */
const POSITIONS_TIMEOUT_MS = 1000;

interface Position {
  epoch: number;
  seq: number;
  copied_bytes?: number;
}

export interface MoveTimings {
  slot: number;
  /** Bytes of the snapshot the new owner received. */
  bytes: number;
  total_ms: number;
  /** Between freeze and release: how long writes to the slot waited. */
  paused_ms: number;
  /** The pause's parts: the freeze call, the new owner's last entries, the map switch, the release call. */
  pause_parts_ms: { freeze: number; apply: number; switch: number; release: number };
}

export class GrpcSlotMover implements MoveRunner {
  private readonly members: MemberClients;
  /** The last moves' figures (bench, status). */
  readonly history: MoveTimings[] = [];

  constructor(
    private readonly view: SlotView,
    tls: TlsMaterial | null,
    private readonly onMoved: (timings: MoveTimings & { from: string; to: string }) => void = () => undefined,
  ) {
    this.members = new MemberClients(view, tls);
  }

  private client(id: string): ShardClient {
    const client = this.members.get(id);
    if (!client) throw new Error(`member ${id} is not in the cluster`);
    return client;
  }

  private position(member: string, slot: number, timeoutMs = CALL_TIMEOUT_MS): Promise<Position | null> {
    return this.client(member).call({ type: 'slot.position', slot }, { timeoutMs });
  }

  /** One call per member, however many slots a failover ranks (not one per slot: 700 calls on a loaded shard took most of a second). */
  async positions(member: string, slots: number[]): Promise<Map<number, { epoch: number; seq: number }>> {
    const out = new Map<number, { epoch: number; seq: number }>();
    const found = await this.client(member).call({ type: 'slot.positions', slots }, { timeoutMs: POSITIONS_TIMEOUT_MS }).catch(() => []);
    slots.forEach((slot, i) => {
      const p = found[i];
      if (p && p.seq >= 0) out.set(slot, { epoch: p.epoch, seq: p.seq });
    });
    return out;
  }

  async run(move: Move, steps: MoveSteps, progress: (fraction: number) => void): Promise<void> {
    if (move.from === null) throw new Error('nothing to copy');
    const started = performance.now();
    const { slot } = move;
    const from = this.client(move.from);
    if (!this.view.entry(slot).followers.includes(move.to)) await steps.addFollower();
    progress(0.1);
    // The primary's replicator copies the slot to its new follower; wait until that copy is current.
    const deadline = Date.now() + CATCH_UP_MS;
    let copied = 0;
    for (;;) {
      const epoch = this.view.entry(slot).epoch;
      const [theirs, ours] = await Promise.all([
        this.position(move.to, slot),
        from.call({ type: 'slot.head', slot }, { timeoutMs: CALL_TIMEOUT_MS }),
      ]);
      copied = theirs?.copied_bytes ?? copied;
      // Caught up, and in the slot's in-sync set: only an in-sync copy may become the primary.
      if (theirs && theirs.epoch === epoch && theirs.seq >= 0 && ours.seq - theirs.seq <= FREEZE_LAG && this.view.entry(slot).isr.includes(move.to)) break;
      if (Date.now() > deadline) throw new Error(`slot ${slot}: ${move.to} did not catch up in ${CATCH_UP_MS} ms`);
      // Membership changed (a failover waits): the move gives way and is tried again later.
      if (steps.abandoned?.()) throw new Error(`slot ${slot}: move set aside for a failover`);
      progress(theirs && theirs.seq >= 0 ? 0.8 : 0.1 + Math.min(0.6, (Date.now() - started) / CATCH_UP_MS));
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    progress(0.9);
    const pauseStart = performance.now();
    const frozen = await from.call({ type: 'slot.freeze', slot, epoch: this.view.entry(slot).epoch }, { timeoutMs: CALL_TIMEOUT_MS });
    const parts = { freeze: Math.round(performance.now() - pauseStart), apply: 0, switch: 0, release: 0 };
    let switched = false;
    try {
      let t = performance.now();
      const until = Date.now() + FINAL_APPLY_MS;
      for (;;) {
        const theirs = await this.position(move.to, slot);
        if (theirs && theirs.epoch === frozen.epoch && theirs.seq >= frozen.seq) break;
        if (Date.now() > until) throw new Error(`slot ${slot}: ${move.to} did not apply the last entries in ${FINAL_APPLY_MS} ms`);
        await new Promise((r) => setTimeout(r, 2));
      }
      parts.apply = Math.round(performance.now() - t);
      t = performance.now();
      await steps.switchOwner(true);
      parts.switch = Math.round(performance.now() - t);
      switched = true;
    } finally {
      const t = performance.now();
      await from.call({ type: 'slot.release', slot, switched, epoch: frozen.epoch, keep: true }, { timeoutMs: CALL_TIMEOUT_MS });
      parts.release = Math.round(performance.now() - t);
    }
    const end = performance.now();
    const timings = { slot, bytes: copied, total_ms: Math.round(end - started), paused_ms: Math.round(end - pauseStart), pause_parts_ms: parts };
    this.history.push(timings);
    if (this.history.length > 1024) this.history.shift();
    this.onMoved({ ...timings, from: move.from, to: move.to });
    progress(1);
  }

  close(): void {
    this.members.close();
  }
}
