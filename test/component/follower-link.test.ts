// Component: a primary's link to one follower (src/shard/follower-link.ts, copy-sync.ts) over a
// real store, with the follower's answers scripted. A follower that rejoins (outside every in-sync
// set) and cannot be reached for a moment — a restarted shard whose port is not open yet, a call
// that timed out under load — must still end with every copy current and in the in-sync set:
// once, a failed first call left such copies unknown for good, and the shard stayed `catching_up`.
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MailcueError } from '../../src/errors/registry.js';
import type { Logger } from '../../src/obs/logger.js';
import type { ShardClient } from '../../src/rpc/shard-client.js';
import { FollowerLink } from '../../src/shard/follower-link.js';
import type { IsrWriter } from '../../src/shard/isr-writer.js';
import { LeaderEpochs } from '../../src/shard/leader-epochs.js';
import { openShardStore } from '../../src/storage/shard-store.js';
import { applySlotEntries } from '../../src/storage/slot-data.js';
import { until } from '../helpers/wait.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;

test('follower link - copies whose first call failed are made again, and join the in-sync set', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-link-'));
  const store = openShardStore(dir);
  try {
    // Slot 5 holds a record (a snapshot copy); slot 6 holds nothing (the batch of empty copies).
    await applySlotEntries(store, [{ db: 'inboxes', key: [5, 'a@mailcue.test'], value: { address: 'a@mailcue.test' } }]);
    const failedOnce = new Set<string>();
    const calls: string[] = [];
    const client = {
      async call(cmd: { type: string }) {
        calls.push(cmd.type);
        // The first call of each kind fails as an unreachable follower's does.
        if (!failedOnce.has(cmd.type)) {
          failedOnce.add(cmd.type);
          throw new MailcueError('unavailable', 'Shard f is unavailable: 14 UNAVAILABLE: No connection established', { retry_after_s: 1 });
        }
        if (cmd.type === 'slot.position') return null;
        if (cmd.type === 'slot.resync_empty' || cmd.type === 'slot.replicate') return { refused: [] };
        return null;
      },
    } as unknown as ShardClient;
    const joined: number[] = [];
    const isr = {
      expand: async (slot: number) => { joined.push(slot); },
      shrink: async () => undefined,
    } as unknown as IsrWriter;
    const link = new FollowerLink('f', { store, log: quiet, isr, epochs: new LeaderEpochs(store), clientFor: () => client });
    try {
      link.follow(5, 1, false);
      link.follow(6, 1, false);
      await until(() => joined.includes(5) && joined.includes(6), 'both copies in the in-sync set', 15_000).catch(() => undefined);
      t.deepEqual([...joined].sort(), [5, 6], `calls: ${calls.join(', ')}`);
      t.deepEqual([...link.lag()].sort(), [[5, 0], [6, 0]], 'both copies current (not catching up)');
    } finally {
      link.close();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('follower link - a closed link asks nothing more of the in-sync set (a join it retried once put a stale copy back in the set)', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-link-'));
  const store = openShardStore(dir);
  try {
    const client = {
      async call(cmd: { type: string }) {
        if (cmd.type === 'slot.resync_empty' || cmd.type === 'slot.replicate') return { refused: [] };
        return null;
      },
    } as unknown as ShardClient;
    // The join fails (etcd slow, or the member not a follower in the map at the moment): it is asked again later.
    const asked: number[] = [];
    let failing = true;
    const isr = {
      expand: async (slot: number) => {
        asked.push(slot);
        if (failing) throw new MailcueError('moved', `Slot ${slot} is no longer this shard's at epoch 1`, { slot, retry_after_s: 1 });
      },
      shrink: async () => undefined,
    } as unknown as IsrWriter;
    const link = new FollowerLink('f', { store, log: quiet, isr, epochs: new LeaderEpochs(store), clientFor: () => client });
    link.follow(6, 1, false);
    await until(() => asked.length >= 1, 'a first request to join', 10_000);
    // The member leaves the cluster: its link closes. Later the map names it a follower again (a new link copies it afresh).
    link.close();
    failing = false;
    const before = asked.length;
    // Three times the link's retry interval: a retry of the closed link's join would have been asked by then.
    await new Promise((r) => setTimeout(r, 1500));
    t.is(asked.length, before, 'the closed link asked to join again');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
