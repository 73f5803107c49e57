// One shard's actors on a fresh LMDB env and a clock the test moves, with one account created:
// per-minute windows, monthly credits and leases are tested at their edges without waiting.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ShardActors } from '../../src/actors/shard-actors.js';
import { loadConfig } from '../../src/config/config.js';
import type { Command } from '../../src/contract/commands.js';
import type { PlanName } from '../../src/config/plans.js';
import { Cancellation } from '../../src/util/cancel.js';

export async function clockedShard(
  t: { teardown(fn: () => unknown): void },
  account: { id: string; plan: PlanName; key: string },
  startMs: number,
) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-component-'));
  const clock = { ms: startMs };
  const actors = new ShardActors(0, loadConfig({}), dir, 'cd'.repeat(32), () => clock.ms);
  t.teardown(async () => {
    await actors.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const run = async <T>(command: Command) => (await actors.dispatch(command, { signal: new Cancellation(), deadline: 0 })) as T;
  await run({ type: 'account.create', id: account.id, name: null, plan: account.plan, key: account.key, created_at: new Date(clock.ms).toISOString() });
  return { clock, run, actors };
}
