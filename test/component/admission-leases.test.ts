// Component: admission leases between a front's lease store and the account's shard (real LMDB),
// with one injected clock, so limits, windows and returns are tested at their edges.
import test from 'ava';
import type { Meter } from '../../src/contract/commands.js';
import type { Admission } from '../../src/contract/results.js';
import { MailcueError } from '../../src/errors/registry.js';
import { AdmissionLeases } from '../../src/security/admission-leases.js';
import { sha256Hex } from '../../src/security/credentials.js';
import { clockedShard } from '../helpers/clocked-shard.js';

const KEY = 'mc_acc_leases_secret';
const HASH = sha256Hex(KEY);
const ACCOUNT = 'acc_leases';

/** A shard and one front's lease store on a clock the test moves; it starts 1 s into a UTC minute. */
async function frontAndShard(t: { teardown(fn: () => unknown): void }, plan: 'free' | 'enterprise') {
  const { clock, run } = await clockedShard(t, { id: ACCOUNT, plan, key: KEY }, Date.UTC(2026, 10, 30, 22, 58, 1));
  const leases = new AdmissionLeases(() => clock.ms);
  let roundTrips = 0;
  /** What the front does for each request (src/front/auth.ts), with the credential always trusted. */
  const admit = (meter: Meter, session?: string): Promise<Admission> =>
    leases.admit(HASH, meter, session, () => true, (extra) => {
      roundTrips++;
      return run<Admission>({ type: 'account.admit', accountId: ACCOUNT, credential: 'api_key', credentialHash: HASH, meter, ...(session ? { session } : {}), ...extra });
    });
  const giveBack = async (taken: ReturnType<AdmissionLeases['takeAccount']>) => {
    for (const { accountId, returned } of taken) await run({ type: 'account.lease_return', accountId, returned });
  };
  const usage = () => run<{ requests_this_minute: number; ops_this_minute: number; credits_used: number }>({ type: 'account.usage', accountId: ACCOUNT });
  return { clock, admit, leases, run, giveBack, usage, roundTrips: () => roundTrips };
}

test('admission leases - a busy key spends leases: every answer shows the exact remaining, the limit holds to the request', async (t) => {
  const { admit, leases, giveBack, usage, roundTrips } = await frontAndShard(t, 'enterprise');
  for (let i = 0; i < 1200; i++) {
    const a = await admit({ kind: 'rest' });
    t.is(a.rate.remaining, 1199 - i, `request ${i + 1}`);
    t.is(a.rate.limit, 1200);
  }
  t.true(roundTrips() < 400, `${roundTrips()} shard round trips for 1,200 admissions`);
  t.true(leases.spent > 800);
  const refused = (await t.throwsAsync(admit({ kind: 'rest' }))) as MailcueError;
  t.is(refused.code, 'rate_limited');
  await giveBack(leases.takeAccount(ACCOUNT));
  t.is((await usage()).requests_this_minute, 1200);
});

test('admission leases - what a lease leaves unspent goes back: usage counts what was spent, and it can be spent again', async (t) => {
  const { admit, leases, giveBack, usage } = await frontAndShard(t, 'enterprise');
  for (let i = 0; i < 5; i++) await admit({ kind: 'rest' });
  t.is(leases.size, 1);
  const [taken] = leases.takeAccount(ACCOUNT);
  t.true(taken!.returned.rest > 0, 'the lease had admissions left');
  await giveBack([taken!]);
  t.is((await usage()).requests_this_minute, 5);
  t.is(leases.size, 0);
  t.is((await admit({ kind: 'rest' })).rate.remaining, 1194);
});

test('admission leases - a small plan never leases: sixty admissions are sixty round trips', async (t) => {
  const { admit, leases, roundTrips } = await frontAndShard(t, 'free');
  for (let i = 0; i < 60; i++) t.is((await admit({ kind: 'rest' })).rate.remaining, 59 - i);
  t.is(roundTrips(), 60);
  t.is(leases.spent, 0);
  await t.throwsAsync(admit({ kind: 'rest' }), { instanceOf: MailcueError, message: /Rate limit/ });
});

test('admission leases - tool calls lease ops and credits at their multiplier; credits left stay exact and return', async (t) => {
  const { admit, leases, giveBack, usage } = await frontAndShard(t, 'enterprise');
  const meter: Meter = { kind: 'tool', credits: 3 };
  let left = 1_000_000;
  for (let i = 0; i < 40; i++) {
    const a = await admit(meter, 'sess_a');
    left -= 3;
    t.is(a.credits_left, left, `call ${i + 1}`);
    t.is(a.rate.remaining, 199 - i);
  }
  t.true(leases.spent > 0);
  // A call of another multiplier spends the same lease; credits stay exact.
  const one = await admit({ kind: 'tool', credits: 1 });
  t.is(one.credits_left, left - 1);
  await giveBack(leases.takeAccount(ACCOUNT));
  const u = await usage();
  t.is(u.credits_used, 40 * 3 + 1);
  t.is(u.ops_this_minute, 41);
});

test('admission leases - a lease ends with its window: the next minute starts from zero, old returns change nothing', async (t) => {
  const { clock, admit, leases, run, usage, giveBack } = await frontAndShard(t, 'enterprise');
  for (let i = 0; i < 5; i++) await admit({ kind: 'rest' });
  t.is(leases.size, 1);
  clock.ms += 58_800; // 250 ms before the shard's window ends, the front stops spending
  const spentBefore = leases.spent;
  const a = await admit({ kind: 'rest' });
  t.is(leases.spent, spentBefore, 'not spent from the ending lease');
  t.is(a.rate.remaining, 1200 - 6, 'the unspent rest went back with this admission');
  clock.ms += 1_000;
  const returned = leases.takeFinished();
  for (const { accountId, returned: r } of returned) await run({ type: 'account.lease_return', accountId, returned: r });
  t.is((await admit({ kind: 'rest' })).rate.remaining, 1199);
  // As GET /v1/account does: a lease the new minute's admission brought goes back before usage is read.
  await giveBack(leases.takeAccount(ACCOUNT));
  t.is((await usage()).requests_this_minute, 1);
});

test('admission leases - sessions marked active by spent admissions reach the shard when the lease goes back', async (t) => {
  const { clock, admit, leases, giveBack, run } = await frontAndShard(t, 'enterprise');
  await run({ type: 'account.session_open', accountId: ACCOUNT, sessionId: 'sess_kept', idleMs: 5_000, session: { transport: 'streamable-http', protocolVersion: '2025-06-18', generation: 0 } });
  for (let i = 0; i < 4; i++) await admit({ kind: 'rest' });
  clock.ms += 4_000;
  await admit({ kind: 'rest' }, 'sess_kept');
  t.true(leases.spent > 0);
  await giveBack(leases.takeAccount(ACCOUNT));
  clock.ms += 4_000; // 8 s after opening, 4 s after the spent admission that used it
  t.is(await run<number>({ type: 'account.sessions', accountId: ACCOUNT }), 1);
});

test('admission leases - 64 concurrent callers of one key until each is refused: exactly the limit is admitted', async (t) => {
  const { admit, leases, giveBack, usage } = await frontAndShard(t, 'enterprise');
  let admitted = 0;
  await Promise.all(Array.from({ length: 64 }, async () => {
    for (;;) {
      try {
        await admit({ kind: 'rest' });
        admitted++;
      } catch (err) {
        t.is((err as MailcueError).code, 'rate_limited');
        return;
      }
    }
  }));
  t.is(admitted, 1200);
  t.true(leases.spent > 0);
  await giveBack(leases.takeAccount(ACCOUNT));
  t.is((await usage()).requests_this_minute, 1200);
});

test('admission leases - a key that comes back every 2 s is busy too: after its first few, its admissions come from leases', async (t) => {
  const { clock, admit, roundTrips } = await frontAndShard(t, 'enterprise');
  for (let i = 0; i < 20; i++) {
    await admit({ kind: 'rest' });
    clock.ms += 2_000;
  }
  t.true(roundTrips() <= 4, `${roundTrips()} shard round trips for 20 admissions 2 s apart`);
});
