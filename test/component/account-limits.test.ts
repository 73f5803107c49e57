// Component: admission on the account's shard (real LMDB) with an injected clock, so per-minute
// windows and monthly credits are tested at their edges without waiting for a real minute.
import test from 'ava';
import type { Command } from '../../src/contract/commands.js';
import type { Admission } from '../../src/contract/results.js';
import { MailcueError } from '../../src/errors/registry.js';
import { sha256Hex } from '../../src/security/credentials.js';
import { clockedShard } from '../helpers/clocked-shard.js';

const KEY = 'mc_acc_limits_secret';

/** A shard whose clock the test moves; it starts 10 s into a UTC minute. */
async function shardAt(t: { teardown(fn: () => unknown): void }, plan: 'free' | 'growth') {
  const { clock, run } = await clockedShard(t, { id: 'acc_limits', plan, key: KEY }, Date.UTC(2026, 10, 30, 23, 58, 10));
  const admit = (meter: Extract<Command, { type: 'account.admit' }>['meter']) =>
    run<Admission>({ type: 'account.admit', accountId: 'acc_limits', credential: 'api_key', credentialHash: sha256Hex(KEY), meter });
  return { clock, admit };
}

test('account limits - the 61st REST request of a minute on Free is refused, with the seconds to the next window', async (t) => {
  const { clock, admit } = await shardAt(t, 'free');
  for (let i = 0; i < 60; i++) t.is((await admit({ kind: 'rest' })).rate.remaining, 59 - i);
  const refused = (await t.throwsAsync(admit({ kind: 'rest' }))) as MailcueError;
  t.is(refused.code, 'rate_limited');
  t.like(refused.details, { retry_after_s: 50, limit: 60, remaining: 0, reset_s: 50 });
  clock.ms += 49_999;
  await t.throwsAsync(admit({ kind: 'rest' }), { instanceOf: MailcueError });
  clock.ms += 1; // the next UTC minute: a fresh window
  t.is((await admit({ kind: 'rest' })).rate.remaining, 59);
});

test('account limits - tool ops and credits on Growth: the 61st op of a minute is refused, credits renew with the UTC month', async (t) => {
  const { clock, admit } = await shardAt(t, 'growth');
  const first = await admit({ kind: 'tool', credits: 1 });
  for (let i = 1; i < 60; i++) await admit({ kind: 'tool', credits: 1 });
  const refused = (await t.throwsAsync(admit({ kind: 'tool', credits: 1 }))) as MailcueError;
  t.is(refused.code, 'rate_limited');
  t.regex(refused.message, /60 ops per minute on Growth/);
  clock.ms += 60_000;
  const next = await admit({ kind: 'tool', credits: 1 });
  t.is(next.credits_left, first.credits_left! - 60, 'a refused op costs no credit');
  clock.ms += 2 * 60_000; // past midnight of 30 November: a new UTC month
  t.is((await admit({ kind: 'tool', credits: 1 })).credits_left, first.credits_left);
});
