// Component: an older copy of a shard's data directory (a backup restored, a disk rolled back)
// starts as a new member (DESIGN.md §8 "Identity"), against a real etcd. The copy carries the
// directory's incarnation id, so only its generation tells it apart.
import test from 'ava';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectEtcd, type EtcdHandle } from '../../src/cluster/etcd.js';
import { Generations, GENERATIONS_PREFIX } from '../../src/shard/generations.js';
import { incarnationOf } from '../../src/shard/incarnation.js';
import { startEtcd, type EtcdServer } from '../helpers/etcd.js';

let etcd: EtcdServer;
let handle: EtcdHandle;
const dirs: string[] = [];

test.before(async () => {
  etcd = await startEtcd();
  handle = connectEtcd({ endpoints: [etcd.endpoint], prefix: '/generations-test/' });
});
test.after.always(async () => {
  handle?.close();
  await etcd?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'mailcue-generations-'));
  dirs.push(d);
  return d;
}

/** A shard's start as cluster-shard.ts makes it: the directory's incarnation, checked against etcd. */
async function startOn(member: string, dir: string, older: string[] = []): Promise<Generations> {
  return Generations.start(handle.ns, member, dir, incarnationOf(dir), 60_000, (found, known) => older.push(`${found} < ${known}`));
}

test.serial('generations - a directory restarted as it is keeps its incarnation', async (t) => {
  const dir = path.join(tempDir(), 'shard-0');
  const first = await startOn('same', dir);
  await first.raise();
  first.stop();
  const older: string[] = [];
  const again = await startOn('same', dir, older);
  again.stop();
  t.is(again.incarnation, first.incarnation);
  t.deepEqual(older, []);
});

test.serial('generations - a copy taken before the shard ran on is a new incarnation', async (t) => {
  const dir = path.join(tempDir(), 'shard-1');
  const backup = path.join(tempDir(), 'backup');
  const first = await startOn('rolled', dir);
  cpSync(dir, backup, { recursive: true });
  // The shard runs on: a period passes.
  await first.raise();
  first.stop();
  // The disk is rolled back to the copy.
  rmSync(dir, { recursive: true });
  cpSync(backup, dir, { recursive: true });
  t.is(readFileSync(path.join(dir, 'incarnation'), 'utf8').trim(), first.incarnation, 'the copy carries the old incarnation id');
  const older: string[] = [];
  const restored = await startOn('rolled', dir, older);
  restored.stop();
  t.not(restored.incarnation, first.incarnation, 'a new member, not the old one');
  t.deepEqual(older, ['1 < 2']);
  t.is(readFileSync(path.join(dir, 'incarnation'), 'utf8').trim(), restored.incarnation, 'the new id is kept in the directory');
  const registered = JSON.parse((await handle.ns.get(`${GENERATIONS_PREFIX}rolled`).string())!) as { incarnation: string; generation: number };
  t.deepEqual(registered, { incarnation: restored.incarnation, generation: 3 });
});

test.serial('generations - an empty directory under a known id is a new incarnation, its generation goes on', async (t) => {
  const dir = path.join(tempDir(), 'shard-2');
  const first = await startOn('wiped', dir);
  first.stop();
  rmSync(dir, { recursive: true });
  const older: string[] = [];
  const fresh = await startOn('wiped', dir, older);
  fresh.stop();
  t.not(fresh.incarnation, first.incarnation);
  t.deepEqual(older, [], 'a new directory is not an older copy of the old one');
  t.is(readFileSync(path.join(dir, 'generation'), 'utf8').trim(), '2');
});
