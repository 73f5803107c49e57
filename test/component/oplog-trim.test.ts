// Component: the oplog on a real LMDB env keeps the entries younger than its retention (and each
// slot's newest), whatever the gaps in its sequence numbers, and trims the rest; the clock is injected.
import test from 'ava';
import { open } from 'lmdb';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Oplog } from '../../src/storage/oplog.js';

const SLOT = 7;

async function withLog(t: { teardown(fn: () => void | Promise<void>): void }, retentionMs: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-oplog-'));
  const root = open({ path: dir, maxDbs: 8 });
  const clock = { now: 0 };
  const oplog = new Oplog(root, () => clock.now, retentionMs);
  t.teardown(async () => {
    await oplog.close();
    await root.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** Entries at these sequence numbers, each written at 10 ms × its number. */
  const write = (seqs: number[]) => root.transaction(() => {
    for (const seq of seqs) oplog.logReplicated(SLOT, seq, { db: 'messages', key: [SLOT, `m${seq}`], value: { text: 'x'.repeat(1000) }, at: seq * 10 });
  });
  const left = () => [...oplog.db.getKeys({ start: [SLOT, 0], end: [SLOT, 2 ** 32] })].map((k) => (k as number[])[1]);
  return { clock, oplog, write, left };
}

const range = (from: number, to: number, step = 1) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

test('oplog trim - entries older than the retention go, younger ones stay', async (t) => {
  const { clock, oplog, write, left } = await withLog(t, 1000);
  await write(range(1, 100));
  clock.now = 1500; // cutoff 500: entries 1-50 are at 10-500 ms
  t.is(await oplog.trim(), 50);
  t.deepEqual(left(), range(51, 100));
  t.is(await oplog.trim(), 0, 'a second trim finds nothing more');
});

test('oplog trim - gaps in the sequence numbers do not move the cut', async (t) => {
  const { clock, oplog, write, left } = await withLog(t, 1000);
  await write(range(1, 298, 3));
  clock.now = 2000; // cutoff 1000: entries up to 100 (at 1000 ms) go
  await oplog.trim();
  t.deepEqual(left(), range(103, 298, 3));
});

test('oplog trim - the newest entry stays when every entry is old', async (t) => {
  const { clock, oplog, write, left } = await withLog(t, 1000);
  await write(range(1, 5000));
  clock.now = 10 ** 9;
  t.is(await oplog.trim(), 4999, 'more than one batch of removals');
  t.deepEqual(left(), [5000]);
});

test('oplog trim - a retention of 0 keeps only the newest entry', async (t) => {
  const { oplog, write, left } = await withLog(t, 0);
  await write(range(1, 20));
  await oplog.trim();
  t.deepEqual(left(), [20]);
});

test('oplog trim - each slot with entries is trimmed, however far apart the slots are', async (t) => {
  const { clock, oplog, write, left } = await withLog(t, 1000);
  await write(range(1, 100));
  const far = 1000;
  await oplog.db.transaction(() => {
    for (const seq of range(1, 100)) oplog.logReplicated(far, seq, { db: 'messages', key: [far, `m${seq}`], value: 'x', at: seq * 10 });
  });
  clock.now = 1500;
  t.is(await oplog.trim(), 100);
  t.deepEqual(left(), range(51, 100));
  t.deepEqual([...oplog.db.getKeys({ start: [far, 0], end: [far, 2 ** 32] })].map((k) => (k as number[])[1]), range(51, 100));
});
