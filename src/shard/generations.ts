// Telling an older copy of a data directory from the directory itself (DESIGN.md §8 "Identity": a
// restored backup is a new, empty member). The incarnation id travels with every copy of the
// directory, so it alone cannot tell. Beside it the directory keeps a generation that the running
// shard raises once per lease TTL (5 s by default), first in the directory and then in etcd
// (`generations/<member id>`, a key on no lease, so it outlives the process). A directory that
// starts with a lower generation than etcd holds for its incarnation is a copy taken before
// (a backup restored, a disk rolled back): it gets a new incarnation, and the controller treats it
// as the new, empty member it must be. A copy younger than one period is not told apart; it is
// still judged by its primaries like any restarted member (truncation by leader epoch).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EtcdHandle } from '../cluster/etcd.js';
import { renewIncarnation } from './incarnation.js';

export const GENERATIONS_PREFIX = 'generations/';
const FILE = 'generation';

interface Registered {
  incarnation: string;
  generation: number;
}

function readGeneration(dataDir: string): number {
  const file = path.join(dataDir, FILE);
  if (!existsSync(file)) return 0;
  const n = Number(readFileSync(file, 'utf8').trim());
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/** Written whole or not at all (a rename), and flushed: it must never be behind what etcd holds. */
function writeGeneration(dataDir: string, generation: number): void {
  const file = path.join(dataDir, FILE);
  writeFileSync(`${file}.tmp`, `${generation}\n`, { mode: 0o600, flush: true });
  renameSync(`${file}.tmp`, file);
}

export class Generations {
  private timer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly ns: EtcdHandle['ns'],
    private readonly memberId: string,
    private readonly dataDir: string,
    readonly incarnation: string,
    private generation: number,
  ) {}

  /**
   * The directory's incarnation, renewed when the directory is older than the one etcd last heard
   * of under it; the generation then rises at once and every period after.
   */
  static async start(ns: EtcdHandle['ns'], memberId: string, dataDir: string, incarnation: string, periodMs: number, onOlder: (found: number, known: number) => void): Promise<Generations> {
    const raw = await ns.get(`${GENERATIONS_PREFIX}${memberId}`).string();
    const known = raw ? (JSON.parse(raw) as Registered) : null;
    const found = readGeneration(dataDir);
    let current = incarnation;
    if (known && known.incarnation === incarnation && found < known.generation) {
      onOlder(found, known.generation);
      current = renewIncarnation(dataDir);
    }
    const g = new Generations(ns, memberId, dataDir, current, Math.max(found, known?.generation ?? 0));
    await g.raise();
    // How often it rises is how old a copy must be to be caught.
    g.timer = setInterval(() => void g.raise().catch(() => undefined), periodMs);
    g.timer.unref();
    return g;
  }

  /** The directory first, then etcd: etcd never holds a generation the directory has not reached. */
  async raise(): Promise<void> {
    this.generation++;
    writeGeneration(this.dataDir, this.generation);
    await this.ns.put(`${GENERATIONS_PREFIX}${this.memberId}`).value(JSON.stringify({ incarnation: this.incarnation, generation: this.generation } satisfies Registered));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
