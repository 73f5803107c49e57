// The controller's MoveRunner over gRPC: copies one slot from its primary to the new owner as
// snapshot pages, then oplog tails until the copy is close, then freezes the slot on the giver,
// copies the last entries, switches the map (epoch + 1) and releases. Writes to the slot wait only
// between freeze and release.
import type { Move } from '../cluster/assignment.js';
import type { MoveRunner } from '../cluster/controller.js';
import type { SlotView } from '../cluster/slot-view.js';
import { ShardClient } from '../rpc/shard-client.js';
import type { TlsMaterial } from '../rpc/tls.js';

/** Bounded stream messages (DESIGN.md §7). */
const PAGE_BYTES = 1024 * 1024;
/** Live tail rounds before freezing; each round copies what was written during the last. */
const TAIL_ROUNDS = 5;
const CALL_TIMEOUT_MS = 30_000;

interface Page {
  records: unknown[];
  next: unknown;
  seq: number;
}

export interface MoveTimings {
  slot: number;
  bytes: number;
  records: number;
  total_ms: number;
  /** Between freeze and release: how long writes to the slot waited. */
  paused_ms: number;
}

export class GrpcSlotMover implements MoveRunner {
  private readonly clients = new Map<string, ShardClient>();
  /** The last moves' figures (bench, status). */
  readonly history: MoveTimings[] = [];

  constructor(
    private readonly view: SlotView,
    private readonly tls: TlsMaterial | null,
    private readonly onMoved: (timings: MoveTimings & { from: string; to: string }) => void = () => undefined,
  ) {}

  private client(id: string): ShardClient {
    const member = this.view.member(id);
    if (!member) throw new Error(`member ${id} is not in the cluster`);
    let c = this.clients.get(id);
    if (c && c.target !== member.address) {
      c.close();
      c = undefined;
    }
    if (!c) {
      c = new ShardClient(id, member.address, undefined, this.tls);
      this.clients.set(id, c);
    }
    return c;
  }

  async run(move: Move, switchOwner: () => Promise<void>, progress: (fraction: number) => void): Promise<void> {
    if (move.from === null) throw new Error('nothing to copy');
    const started = performance.now();
    const from = this.client(move.from);
    const to = this.client(move.to);
    const { slot } = move;
    const call = <T>(c: ShardClient, command: Parameters<ShardClient['call']>[0]) => c.call<T>(command, { timeoutMs: CALL_TIMEOUT_MS });
    let bytes = 0;
    let records = 0;
    const send = async (batch: unknown[]) => {
      if (batch.length === 0) return;
      records += batch.length;
      bytes += JSON.stringify(batch).length;
      await call(to, { type: 'slot.apply', slot, records: batch });
    };
    let cursor: unknown = null;
    let seq = -1;
    let pages = 0;
    do {
      const page: Page = await call<Page>(from, { type: 'slot.snapshot', slot, cursor, maxBytes: PAGE_BYTES });
      if (seq < 0) seq = page.seq;
      await send(page.records);
      cursor = page.next;
      progress(Math.min(0.8, ++pages * 0.1));
    } while (cursor !== null);
    const tail = async (until: number) => {
      for (;;) {
        const res = await call<{ records: unknown[]; last: number }>(from, { type: 'slot.oplog', slot, after: seq, maxBytes: PAGE_BYTES });
        await send(res.records);
        const advanced = res.last > seq;
        seq = res.last;
        if (!advanced || seq >= until) return;
      }
    };
    for (let round = 0; round < TAIL_ROUNDS; round++) {
      const before = seq;
      await tail(Infinity);
      if (seq === before) break;
    }
    progress(0.9);
    const pauseStart = performance.now();
    const frozen = await call<{ seq: number; epoch: number }>(from, { type: 'slot.freeze', slot });
    let switched = false;
    try {
      await tail(frozen.seq);
      await switchOwner();
      switched = true;
    } finally {
      await call(from, { type: 'slot.release', slot, switched, epoch: frozen.epoch });
    }
    const end = performance.now();
    const timings = { slot, bytes, records, total_ms: Math.round(end - started), paused_ms: Math.round(end - pauseStart) };
    this.history.push(timings);
    if (this.history.length > 1024) this.history.shift();
    this.onMoved({ ...timings, from: move.from, to: move.to });
    progress(1);
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
