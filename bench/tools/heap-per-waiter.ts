// What each Mailcue process keeps in its JS heap per parked long-poll, by object type: heap
// snapshots of every process (1 front, 2 shards) before and after parking N waits, diffed.
// REST waits, or with --mcp MCP watch_email calls (answered as SSE).
// parked-waiters measures RSS; this says which objects it is made of. --retainers splits each
// type by what first holds it (`string ← ParkedToolCall.key`), to find who keeps a string or object.
//   npm run build && node --import tsx bench/tools/heap-per-waiter.ts [--waits 5000] [--top 16] [--mcp] [--retainers]
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { Generator } from '../lib/generator.js';
import { Mailcue } from '../lib/mailcue.js';
import { benchSession, runTool, waitFor } from '../lib/proc.js';
import { numberArg } from '../lib/args.js';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const WAITS = numberArg('--waits', 5000);
const TOP = numberArg('--top', 16);
const INBOXES = 1000;
const MCP = process.argv.includes('--mcp');
const RETAINERS = process.argv.includes('--retainers');

/** Per node (by ordinal): `owner.edge` of the first strong edge that reaches it. */
function firstRetainers(s: Snapshot, label: (ordinal: number) => string): (string | undefined)[] {
  const nf = s.snapshot.meta.node_fields.length;
  const ef = s.snapshot.meta.edge_fields;
  const [etype, ename, eto] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [number, number, number];
  const edgeTypes = s.snapshot.meta.edge_types[0];
  const edgeCount = s.snapshot.meta.node_fields.indexOf('edge_count');
  const out: (string | undefined)[] = new Array(s.nodes.length / nf);
  let e = 0;
  for (let n = 0; n < s.nodes.length / nf; n++) {
    const count = s.nodes[n * nf + edgeCount]!;
    for (let k = 0; k < count; k++, e += ef.length) {
      const kind = edgeTypes[s.edges[e + etype]!]!;
      if (kind === 'weak' || kind === 'shortcut') continue;
      const to = s.edges[e + eto]! / nf;
      if (out[to] !== undefined) continue;
      const name = kind === 'element' || kind === 'hidden' ? `[${s.edges[e + ename]}]` : s.strings[s.edges[e + ename]!];
      out[to] = `${label(n)}.${name}`.slice(0, 60);
    }
  }
  return out;
}

/** Self size and count per `type:constructor` (all strings as one row). */
function byType(file: string): Map<string, { size: number; count: number }> {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const types = s.snapshot.meta.node_types[0];
  const rows = new Map<string, { size: number; count: number }>();
  const label = (ordinal: number) => {
    const t = types[s.nodes[ordinal * fields.length + type]!]!;
    return t === 'object' || t === 'closure' ? s.strings[s.nodes[ordinal * fields.length + name]!]!.slice(0, 30) : t;
  };
  const retainers = RETAINERS ? firstRetainers(s, label) : null;
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const t = types[s.nodes[i + type]!]!;
    let key = t.includes('string') ? 'string' : t === 'code' ? 'code' : `${t}:${s.strings[s.nodes[i + name]!]}`.slice(0, 60);
    if (retainers) key += ` ← ${retainers[i / fields.length] ?? '?'}`;
    const row = rows.get(key) ?? { size: 0, count: 0 };
    row.size += s.nodes[i + size]!;
    row.count++;
    rows.set(key, row);
  }
  return rows;
}

function perWait(before: string, after: string): { bytes: number; top: string[] } {
  const [a, b] = [byType(before), byType(after)];
  const diff = [...b].map(([k, v]) => ({ k, size: (v.size - (a.get(k)?.size ?? 0)) / WAITS, count: (v.count - (a.get(k)?.count ?? 0)) / WAITS }));
  diff.sort((x, y) => y.size - x.size);
  return {
    bytes: Math.round(diff.reduce((sum, d) => sum + d.size, 0)),
    top: diff.slice(0, TOP).filter((d) => d.size >= 1).map((d) => `${d.size.toFixed(0).padStart(5)} B ${d.count.toFixed(2).padStart(5)} × ${d.k}`),
  };
}

/** A snapshot file is written in place: it is whole once its JSON is closed. */
function complete(file: string): boolean {
  const size = statSync(file).size;
  if (size < 2) return false;
  const tail = Buffer.alloc(Math.min(size, 16));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, tail, 0, tail.length, size - tail.length);
  } finally {
    closeSync(fd);
  }
  return tail.toString('latin1').trimEnd().endsWith('}');
}

const { log, tmp } = benchSession('heap-per-waiter');
runTool('heap-per-waiter', tmp, async () => {
  const mc = await Mailcue.start({ fronts: 1, nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${tmp}`] });
  const gen = await Generator.start('waiters', WAITS + 1500);
  try {
    const key = await mc.createAccount();
    const inboxes = await mc.createInboxes(key, 'h', INBOXES);
    const snapshotAll = async (n: number) => {
      for (const { pid } of mc.roles) process.kill(pid, 'SIGUSR2');
      await waitFor(`heap snapshots #${n}`, () => mc.roles.every(({ pid }) => snapshotOf(pid, n)) || null, 60_000, 200);
    };
    const snapshotOf = (pid: number, n: number) => readdirSync(tmp).find((f) => f.endsWith(`.${pid}.0.00${n}.heapsnapshot`) && complete(path.join(tmp, f))) ?? null;
    await snapshotAll(1);
    log(`parking ${WAITS} ${MCP ? 'MCP watch_email calls' : 'REST waits'}`);
    await gen.call('waitersPark', {
      ports: [mc.httpPort], key, inboxes, count: WAITS, first: 0, mcpShare: MCP ? 1 : 0, timeoutS: 60, localAddresses: ['127.0.0.2'], batch: 500, timeLimitMs: 40_000,
    }, 60_000);
    await waitFor(`${WAITS} waits parked`, async () => ((await mc.parkedWaiters()) >= WAITS ? true : null), 30_000, 50);
    await snapshotAll(2);
    for (const { role, pid } of mc.roles) {
      const { bytes, top } = perWait(path.join(tmp, snapshotOf(pid, 1)!), path.join(tmp, snapshotOf(pid, 2)!));
      console.log(`\n${role} (pid ${pid}): ${bytes} B of JS heap per parked wait${role === 'shard' ? ' (half the waits each)' : ''}\n  ${top.join('\n  ')}`);
    }
    await gen.call('waitersClose', null, 20_000);
  } finally {
    await gen.stop();
    await mc.stop();
  }
});
