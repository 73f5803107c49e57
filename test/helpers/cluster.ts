// Reading a running cluster from outside, as an operator would: `mailcue admin cluster status --json`;
// and the shard processes a fault test stops and starts again.
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { slotOf } from '../../src/cluster/slots.js';
import { launch, type Service } from './service.js';

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

/** The running process of shard `id`. */
export function shardProcess(svc: Service, id: string): ChildProcess {
  return svc.processes.find((p) => p.spawnargs.includes(id) && p.exitCode === null && p.signalCode === null)!;
}

/** Starts the shard again under the same id and address, on its data directory (emptied first when `wipe`). */
export function relaunchShard(svc: Service, old: ChildProcess, id: string, wipe: boolean): void {
  if (wipe) rmSync(path.join(svc.dataDir, id), { recursive: true, force: true });
  svc.processes[svc.processes.indexOf(old)] = launch(old.spawnargs.slice(old.spawnargs.indexOf('shard')), svc.env);
}

/** A primary and a follower of `shards` whose slots hold at least two of `inboxes`, and those inboxes. */
export async function primaryWithFollower(svc: Service, shards: string[], inboxes: string[]): Promise<{ primary: string; follower: string; on: string[] }> {
  const s = await clusterStatus(svc);
  for (const primary of shards) {
    for (const follower of shards) {
      if (primary === follower) continue;
      const on = inboxes.filter((inbox) => {
        const e = s.map[slotOf(inbox)] as Json;
        return e.primary === primary && e.followers.includes(follower);
      });
      if (on.length >= 2) return { primary, follower, on };
    }
  }
  throw new Error('no primary and follower share two inboxes');
}

/** `n` inboxes named `<prefix>0@mailcue.test` … of the account `key`, created one after another. */
export async function namedInboxes(svc: Service, key: string, prefix: string, n: number): Promise<string[]> {
  const inboxes: string[] = [];
  for (let i = 0; i < n; i++) {
    const address = `${prefix}${i}@mailcue.test`;
    const res = await svc.api(key, 'POST', '/v1/inboxes', { address });
    if (res.status !== 201) throw new Error(`inbox ${address}: ${res.status} ${await res.text()}`);
    inboxes.push(address);
  }
  return inboxes;
}
