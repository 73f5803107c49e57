// Reading a running cluster from outside, as an operator would: `mailcue admin cluster status --json`.
import type { Service } from './service.js';

type Json = Record<string, any>;

export async function clusterStatus(svc: Service): Promise<Json> {
  const out = await svc.cli(['admin', 'cluster', 'status', '--json']);
  if (out.code !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout) as Json;
}

/** Waits (bounded) until exactly `ids` are members, each within ±5 % of its share and done copying, with no move running. */
export async function balanced(svc: Service, ids: string[], timeoutMs = 120_000): Promise<Json> {
  const end = Date.now() + timeoutMs;
  const share = 1024 / ids.length;
  for (;;) {
    const s = await clusterStatus(svc);
    const members = s.members.map((m: Json) => m.id).sort();
    if (JSON.stringify(members) === JSON.stringify([...ids].sort()) && s.moves.length === 0 && s.members.every((m: Json) => m.state === 'active' && Math.abs(m.primaries - share) <= share * 0.05)) return s;
    if (Date.now() > end) throw new Error(`not balanced over ${ids}: ${JSON.stringify(s.members)}, ${s.moves.length} moves`);
    // Each poll is a CLI process: not too often on a shared machine.
    await new Promise((r) => setTimeout(r, 1000));
  }
}
