// Reading a running cluster from outside, as an operator would: `mailcue admin cluster status --json`.
import type { Service } from './service.js';

type Json = Record<string, any>;

export async function clusterStatus(svc: Service): Promise<Json> {
  const out = await svc.cli(['admin', 'cluster', 'status', '--json']);
  if (out.code !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout) as Json;
}

/**
 * Waits (bounded) until exactly `ids` are members, each within ±5 % of its share and done copying,
 * with no move running and every slot's copies in its in-sync set.
 */
export async function balanced(svc: Service, ids: string[], timeoutMs = 120_000): Promise<Json> {
  const end = Date.now() + timeoutMs;
  const share = 1024 / ids.length;
  for (;;) {
    const s = await clusterStatus(svc);
    const members = s.members.map((m: Json) => m.id).sort();
    const copies = Math.min(s.replicas, ids.length);
    const synced = s.map.every((e: Json) => e.isr.length >= copies && e.followers.length === copies - 1);
    if (JSON.stringify(members) === JSON.stringify([...ids].sort()) && s.moves.length === 0 && synced && s.members.every((m: Json) => m.state === 'active' && Math.abs(m.primaries - share) <= share * 0.05)) return s;
    const unsynced = s.map.filter((e: Json) => !(e.isr.length >= copies && e.followers.length === copies - 1)).slice(0, 5);
    if (Date.now() > end) throw new Error(`not balanced over ${ids}: ${JSON.stringify(s.members)}, ${s.moves.length} moves; short of copies: ${JSON.stringify(unsynced)}`);
    // Each poll is a CLI process: not too often on a shared machine.
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * Waits (bounded) until exactly `ids` are members and every slot is served by a live member with
 * its full in-sync set, moves still running or not (they are online).
 */
export async function healthy(svc: Service, ids: string[], timeoutMs = 120_000): Promise<Json> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await clusterStatus(svc);
    const members = s.members.map((m: Json) => m.id).sort();
    const copies = Math.min(s.replicas, ids.length);
    const short = s.map.filter((e: Json) => !(ids.includes(e.primary) && e.isr.length >= copies));
    if (JSON.stringify(members) === JSON.stringify([...ids].sort()) && short.length === 0) return s;
    if (Date.now() > end) throw new Error(`not healthy over ${ids}: ${JSON.stringify(s.members)}; ${short.length} slots short, e.g. ${JSON.stringify(short.slice(0, 5))}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
