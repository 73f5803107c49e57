// Component: the cluster's coordination against a real etcd (membership on leases, the controller
// election and its handover, revision-compared map transactions, watches, drains).
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { balanceBounds, type Move } from '../../src/cluster/assignment.js';
import { Controller } from '../../src/cluster/controller.js';
import { readMoves, type MoveRunner, type MoveSteps } from '../../src/cluster/moves.js';
import { requestDrain } from '../../src/cluster/drain.js';
import { connectEtcd, type EtcdHandle } from '../../src/cluster/etcd.js';
import { MemberRegistration, readMembers } from '../../src/cluster/members.js';
import { primaryCounts, withPrimary, type SlotMap } from '../../src/cluster/slot-map.js';
import { SlotMapStore } from '../../src/cluster/slot-map-store.js';
import { SlotView } from '../../src/cluster/slot-view.js';
import { readClusterStatus } from '../../src/cluster/status.js';
import { startEtcd, type EtcdServer } from '../helpers/etcd.js';
import { until } from '../helpers/wait.js';

const TTL_S = 3;
let etcd: EtcdServer;
const handles: EtcdHandle[] = [];
const children: ChildProcess[] = [];
let prefixes = 0;

test.before(async () => {
  etcd = await startEtcd();
});
test.after.always(async () => {
  for (const c of children) await kill(c);
  for (const h of handles) h.close();
  await etcd?.stop();
});

/** A fresh prefix per test: the tests share one etcd and run concurrently. */
function client(prefix: string): EtcdHandle {
  const h = connectEtcd({ endpoints: [etcd.endpoint], prefix });
  handles.push(h);
  return h;
}

function newPrefix(): string {
  return `/t${++prefixes}/`;
}

/** A member in a child process (test/helpers/etcd-member.ts), so a test can SIGKILL it. */
async function memberProcess(prefix: string, id: string): Promise<ChildProcess & { out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/etcd-member.ts', etcd.endpoint, prefix, id, String(TTL_S)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  }) as ChildProcess & { out: string };
  child.out = '';
  child.stdout!.on('data', (b: Buffer) => (child.out += b.toString()));
  children.push(child);
  await until(async () => child.out.includes('ready') || (child.exitCode !== null && Promise.reject(new Error(`${id} exited`))), `${id} ready`, 30_000);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

const quiet = { info() {}, warn() {} };

/**
 * Moves data instantly: records each move, adds the new owner as a follower, marks its (instant)
 * copy in sync as the primary's replicator would, and switches the owner.
 */
class RecordingRunner implements MoveRunner {
  readonly moves: Move[] = [];
  constructor(protected readonly store: SlotMapStore) {}
  async run(move: Move, steps: MoveSteps, progress: (f: number) => void): Promise<void> {
    progress(0.5);
    // Recorded before the switch: a test that sees the switched map sees the move too.
    this.moves.push(move);
    await steps.addFollower();
    await inSync(this.store, move.slot, move.to);
    await steps.switchOwner();
  }
}

/** As the mover does over gRPC: the old primary stays a follower of the slot it gave (add before remove). */
class KeepingRunner extends RecordingRunner {
  override async run(move: Move, steps: MoveSteps): Promise<void> {
    this.moves.push(move);
    await steps.addFollower();
    await inSync(this.store, move.slot, move.to);
    await steps.switchOwner(true);
  }
}

/** Holds its first move until go(): what the published status shows of a move in progress. */
class HeldRunner extends RecordingRunner {
  private release: () => void = () => undefined;
  private readonly held = new Promise<void>((resolve) => (this.release = resolve));
  private first = true;
  override async run(move: Move, steps: MoveSteps, progress: (f: number) => void): Promise<void> {
    if (this.first) {
      this.first = false;
      await this.held;
    }
    await super.run(move, steps, progress);
  }
  go(): void {
    this.release();
  }
}

/** The member's copy of the slot joins the in-sync set, as the primary's replicator marks it once caught up. */
async function inSync(store: SlotMapStore, slot: number, member: string): Promise<void> {
  await store.update((map) => {
    const e = map[slot]!;
    if (e.isr.includes(member)) return null;
    const next = map.slice();
    next[slot] = { ...e, isr: [...e.isr, member] };
    return next;
  });
}

/** Stands in for the primaries' replicators: every follower the map names joins its slot's in-sync set soon after. */
function followersJoin(store: SlotMapStore): { stop(): void } {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      await store.update((map) => {
        if (!map.some((e) => e.followers.some((f) => !e.isr.includes(f)))) return null;
        return map.map((e) => ({ ...e, isr: [...new Set([...e.isr, ...e.followers])] }));
      }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { stop: () => (stopped = true) };
}

test('membership - a member is listed while its lease lives and vanishes when its process stops renewing it', async (t) => {
  const prefix = newPrefix();
  const observer = client(prefix);
  const a = await MemberRegistration.register(client(prefix).ns, { id: 'a', address: '127.0.0.1:1', state: 'active' }, TTL_S, () => {});
  const crashed = await memberProcess(prefix, 'b');
  t.deepEqual((await readMembers(observer.ns)).map((m) => m.id), ['a', 'b']);
  // Outlives the TTL while kept alive.
  await new Promise((r) => setTimeout(r, TTL_S * 1000 + 500));
  t.is((await readMembers(observer.ns)).length, 2);
  // A crash: the process goes away without revoking; etcd expires the lease.
  await kill(crashed);
  await until(async () => (await readMembers(observer.ns)).length === 1, 'b to expire', 60_000);
  t.deepEqual((await readMembers(observer.ns)).map((m) => m.id), ['a']);
  await a.setState('draining');
  t.is((await readMembers(observer.ns))[0]!.state, 'draining');
  await a.close();
  t.deepEqual(await readMembers(observer.ns), []);
});

test('membership - a member that registers while a view starts (after its first read came back) is not missed', async (t) => {
  const prefix = newPrefix();
  const { ns } = client(prefix);
  // The view's first read of the members runs, and its answer is held until member "late" has
  // registered: the order that lost a member under load when the watch began after the read.
  let answered!: () => void;
  const readDone = new Promise<void>((r) => (answered = r));
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let reads = 0;
  const slowNs = new Proxy(ns, {
    get(target, prop, receiver) {
      if (prop !== 'getAll') return Reflect.get(target, prop, receiver);
      return () => {
        const builder = target.getAll();
        const first = reads++ === 0;
        return new Proxy(builder, {
          get(b, p, r) {
            if (p === 'prefix') return (key: string) => { b.prefix(key); return r; };
            if (p === 'strings') return async () => {
              const all = await b.strings();
              if (first) {
                answered();
                await held;
              }
              return all;
            };
            return Reflect.get(b, p, r);
          },
        });
      };
    },
  }) as typeof ns;
  const starting = SlotView.start(slowNs);
  await readDone;
  const late = await MemberRegistration.register(client(prefix).ns, { id: 'late', address: '127.0.0.1:1', state: 'active' }, TTL_S, () => {});
  release();
  const view = await starting;
  try {
    await until(async () => view.members().some((m) => m.id === 'late'), 'the view to list the member that registered during its start', 5_000);
    t.pass();
  } finally {
    await view.close();
    await late.close();
  }
});

test('slot map - a transaction at a stale revision loses; re-read, it wins', async (t) => {
  const prefix = newPrefix();
  const one = new SlotMapStore(client(prefix).ns);
  const two = new SlotMapStore(client(prefix).ns);
  const a = await one.read();
  const b = await two.read();
  t.is(a.revision, '0');
  t.true((await one.swap(withPrimary(a.map, 1, 'x'), a.revision)).ok);
  t.false((await two.swap(withPrimary(b.map, 1, 'y'), b.revision)).ok);
  const fresh = await two.read();
  t.is(fresh.map[1]!.primary, 'x');
  t.true((await two.swap(withPrimary(fresh.map, 1, 'y'), fresh.revision)).ok);
  const last = await one.read();
  t.is(last.map[1]!.primary, 'y');
  t.is(last.map[1]!.epoch, 2);
});

test('slot map - a watcher sees the current map, then every version written', async (t) => {
  const prefix = newPrefix();
  const store = new SlotMapStore(client(prefix).ns);
  const seen: SlotMap[] = [];
  const w = await new SlotMapStore(client(prefix).ns).watch((v) => seen.push(v.map));
  t.is(seen.length, 1);
  let { map, revision } = await store.read();
  for (let i = 0; i < 3; i++) {
    map = withPrimary(map, i, 'm');
    revision = (await store.swap(map, revision)).revision;
  }
  await until(async () => seen.length === 4, 'three versions', 60_000);
  t.is(seen[3]![2]!.primary, 'm');
  await w.close();
});

test('controller - elected alone, it hands every slot out; a joiner gets its share; a drained member gives all away', async (t) => {
  const prefix = newPrefix();
  const runner = new RecordingRunner(new SlotMapStore(client(prefix).ns));
  const c = new Controller(client(prefix).ns, 's0', TTL_S, runner, quiet);
  const regs = [await MemberRegistration.register(client(prefix).ns, { id: 's0', address: 'h:0', state: 'active' }, TTL_S, () => {})];
  c.start();
  const store = new SlotMapStore(client(prefix).ns);
  await until(async () => (await store.read()).map.every((e) => e.primary === 's0'), 'every slot owned', 60_000);
  t.true(c.isLeader);

  regs.push(await MemberRegistration.register(client(prefix).ns, { id: 's1', address: 'h:1', state: 'active' }, TTL_S, () => {}));
  const { lo } = balanceBounds(1024, 2);
  await until(async () => (primaryCounts((await store.read()).map).get('s1') ?? 0) >= lo, 's1 balanced', 60_000);
  await c.idle();
  t.true(runner.moves.every((m) => m.from === 's0' && m.to === 's1'));
  const status = await readClusterStatus(client(prefix).ns, 1);
  t.is(status.controller, 's0');
  t.is(status.slots, 1024);
  t.deepEqual(status.members.map((m) => m.id), ['s0', 's1']);
  t.is(status.members[0]!.primaries + status.members[1]!.primaries, 1024);
  t.is(status.map.length, 1024);

  await requestDrain(client(prefix).ns, 's0');
  await until(async () => (await store.read()).map.every((e) => e.primary === 's1'), 's0 drained', 60_000);
  t.is((await readClusterStatus(client(prefix).ns, 1)).members[0]!.state, 'draining');
  await c.stop();
  for (const r of regs) await r.close();
});

test('controller - the published moves show the one in progress (moves run one at a time, and a publish held back by the interval still lands)', async (t) => {
  const prefix = newPrefix();
  const runner = new HeldRunner(new SlotMapStore(client(prefix).ns));
  const c = new Controller(client(prefix).ns, 's0', TTL_S, runner, quiet);
  const regs = [await MemberRegistration.register(client(prefix).ns, { id: 's0', address: 'h:0', state: 'active' }, TTL_S, () => {})];
  try {
    c.start();
    const store = new SlotMapStore(client(prefix).ns);
    await until(async () => (await store.read()).map.every((e) => e.primary === 's0'), 'every slot owned', 60_000);
    regs.push(await MemberRegistration.register(client(prefix).ns, { id: 's1', address: 'h:1', state: 'active' }, TTL_S, () => {}));
    const shown = await until(async () => (await readMoves(client(prefix).ns)).find((m) => m.state === 'copying'), 'a move shown copying', 15_000)
      .finally(() => runner.go());
    t.is(shown.from, 's0');
    t.is(shown.to, 's1');
  } finally {
    await c.stop();
    for (const r of regs) await r.close();
  }
});

test('controller - a move keeps the old primary as a follower only until it is one copy too many: every slot ends with exactly its copies', async (t) => {
  const prefix = newPrefix();
  const store = new SlotMapStore(client(prefix).ns);
  const runner = new KeepingRunner(new SlotMapStore(client(prefix).ns));
  const c = new Controller(client(prefix).ns, 's0', TTL_S, runner, quiet, { replicas: 2, minInsync: null });
  const regs = [
    await MemberRegistration.register(client(prefix).ns, { id: 's0', address: 'h:0', state: 'active' }, TTL_S, () => {}),
    await MemberRegistration.register(client(prefix).ns, { id: 's1', address: 'h:1', state: 'active' }, TTL_S, () => {}),
  ];
  const joining = followersJoin(new SlotMapStore(client(prefix).ns));
  try {
    c.start();
    const exact = (map: SlotMap) => map.every((e) => e.primary !== null && e.followers.length === 1 && e.isr.length === 2);
    await until(async () => exact((await store.read()).map), 'two copies of every slot', 60_000);
    regs.push(await MemberRegistration.register(client(prefix).ns, { id: 's2', address: 'h:2', state: 'active' }, TTL_S, () => {}));
    const { lo } = balanceBounds(1024, 3);
    await until(async () => (primaryCounts((await store.read()).map).get('s2') ?? 0) >= lo, 's2 takes its share', 60_000);
    t.true(runner.moves.length >= lo);
    // Each moved slot had three copies for a moment (the old primary kept); the controller drops the extra one.
    const settled = await until(async () => {
      const { map } = await store.read();
      return exact(map) && map;
    }, 'two copies of every slot again', 30_000).catch(async () => (await store.read()).map);
    t.deepEqual(settled.filter((e) => e.followers.length !== 1).slice(0, 3), [], 'slots with other than one follower');
  } finally {
    joining.stop();
    await c.stop();
    for (const r of regs) await r.close();
  }
});

test('controller - a candidate whose campaign key is gone does not lead when its predecessor steps down (one controller, not two)', async (t) => {
  const prefix = newPrefix();
  const said: string[] = [];
  const logOf = (id: string) => ({ info() {}, warn(_o: object, msg: string) { said.push(`${id}: ${msg}`); } });
  const make = (id: string) => new Controller(client(prefix).ns, id, TTL_S, new RecordingRunner(new SlotMapStore(client(prefix).ns)), logOf(id));
  const { ns } = client(prefix);
  const keys = async () => {
    const res = await ns.getAll().prefix('election/controller/').exec();
    return res.kvs.sort((x, y) => Number(BigInt(x.create_revision) - BigInt(y.create_revision))).map((kv) => kv.key.toString());
  };
  const [a, b, c] = [make('a'), make('b'), make('c')];
  try {
    a.start();
    await until(() => a.isLeader, 'a elected', 60_000);
    b.start();
    await until(async () => (await keys()).length === 2, "b's campaign key", 60_000);
    c.start();
    await until(async () => (await keys()).length === 3, "c's campaign key", 60_000);
    // b's key goes (as when its lease expires while its process is paused); its campaign still waits for a.
    await ns.delete().key((await keys())[1]!);
    await a.stop();
    await until(() => c.isLeader, 'c elected', 60_000);
    await until(() => b.isLeader || said.some((m) => m.startsWith('b: ')), 'b to notice its key is gone, or to lead', 60_000);
    t.false(b.isLeader, `two controllers; b said: ${said.join(' | ')}`);
    t.true(c.isLeader);
  } finally {
    for (const x of [a, b, c]) await x.stop();
  }
});

test('controller - when the controller dies, another member takes over and keeps going', async (t) => {
  const prefix = newPrefix();
  const dying = await memberProcess(prefix, 'a');
  await until(async () => dying.out.includes('leader'), 'a elected', 60_000);
  const before = new SlotMapStore(client(prefix).ns);
  await until(async () => (await before.read()).map.every((e) => e.primary === 'a'), 'a holds every slot', 60_000);
  const bRunner = new RecordingRunner(new SlotMapStore(client(prefix).ns));
  const b = new Controller(client(prefix).ns, 'b', TTL_S, bRunner, quiet);
  b.start();
  // b waits while a lives.
  await new Promise((r) => setTimeout(r, 500));
  t.false(b.isLeader);
  t.is((await readClusterStatus(client(prefix).ns, 1)).controller, 'a');
  await kill(dying);
  await until(async () => b.isLeader, 'b elected', 60_000);
  t.is((await readClusterStatus(client(prefix).ns, 1)).controller, 'b');
  // a held every slot; with no other copy they stay pinned to it while it is away.
  const store = new SlotMapStore(client(prefix).ns);
  t.true((await store.read()).map.every((e) => e.primary === 'a'));
  // a comes back beside b: the new controller balances between them.
  const back = await MemberRegistration.register(client(prefix).ns, { id: 'a', address: 'h:0', state: 'active' }, TTL_S, () => {});
  const reg = await MemberRegistration.register(client(prefix).ns, { id: 'b', address: 'h:1', state: 'active' }, TTL_S, () => {});
  const { lo } = balanceBounds(1024, 2);
  await until(async () => (primaryCounts((await store.read()).map).get('b') ?? 0) >= lo, 'b balanced by the new controller', 60_000);
  t.true(bRunner.moves.length >= lo);
  await back.close();
  await b.stop();
  await reg.close();
});
