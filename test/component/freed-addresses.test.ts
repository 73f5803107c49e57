// DESIGN §7 "Reserved addresses": an address freed by deletion cannot be taken by another account
// for 30 days, with a clock the test moves to the edge of the hold.
import test from 'ava';
import { FREED_ADDRESS_HOLD_MS } from '../../src/actors/inbox-actor.js';
import { MailcueError } from '../../src/errors/registry.js';
import { clockedShard } from '../helpers/clocked-shard.js';

const OWNER = { id: 'acc_00000000000000aa', plan: 'free' as const, key: 'mc_test_key' };
const STRANGER = 'acc_00000000000000bb';
const ADDRESS = 'reset@mailcue.test';

test('freed addresses - held for the last owner 30 days, then anyone may take it', async (t) => {
  const s = await clockedShard(t, OWNER, Date.UTC(2026, 10, 1));
  const create = (accountId: string) => s.run({ type: 'inbox.create', accountId, address: ADDRESS, domain: 'mailcue.test', plan: 'free', retention: null });
  const remove = (accountId: string) => s.run({ type: 'inbox.delete', accountId, address: ADDRESS });

  await create(OWNER.id);
  await remove(OWNER.id);
  t.is(FREED_ADDRESS_HOLD_MS, 30 * 86_400_000);
  s.clock.ms += FREED_ADDRESS_HOLD_MS - 1;
  const refused = await t.throwsAsync(create(STRANGER));
  t.true(refused instanceof MailcueError);
  t.is((refused as MailcueError).code, 'address_taken');

  s.clock.ms += 1;
  await t.notThrowsAsync(create(STRANGER), 'the hold has ended');
  await remove(STRANGER);
  await t.throwsAsync(create(OWNER.id), { message: /held for its previous owner/ }, 'now held for the stranger, its last owner');
});
