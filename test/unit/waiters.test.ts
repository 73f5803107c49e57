import test from 'ava';
import { WaiterRegistry, type Waiter } from '../../src/actors/waiters.js';
import type { MessageRecord } from '../../src/contract/model.js';

function message(otp: string | null): MessageRecord {
  return {
    id: 'msg_1', inbox: 'a@x.test', from: 'f@x.test', to: [], subject: '', date: '', text: null, html: null, headers: {},
    attachments: [], otp, verification_link: null, read: false, size: 1,
  };
}

function waiter(address: string, match: 'any' | 'code', deadline: number, log: string[], name: string): Waiter {
  return {
    address, match, deadline, since: null,
    settle: (outcome) => log.push(`${name}:${outcome === 'timeout' ? 'timeout' : outcome instanceof Error ? 'fail' : 'wake'}`),
  };
}

test('waiters - a delivery wakes matching waiters once; code waiters skip mail without a code', (t) => {
  const reg = new WaiterRegistry();
  const log: string[] = [];
  reg.park(waiter('a@x.test', 'any', Date.now() + 60_000, log, 'any'));
  reg.park(waiter('a@x.test', 'code', Date.now() + 60_000, log, 'code'));
  reg.park(waiter('b@x.test', 'any', Date.now() + 60_000, log, 'other'));
  reg.deliver('a@x.test', message(null));
  t.deepEqual(log, ['any:wake']);
  reg.deliver('a@x.test', message('1234'));
  t.deepEqual(log, ['any:wake', 'code:wake']);
  t.is(reg.size, 1);
  reg.drain();
  t.deepEqual(log, ['any:wake', 'code:wake', 'other:timeout']);
  t.is(reg.size, 0);
});

test('waiters - removing a waiter (a cancelled long-poll) leaves nothing parked and no late answer', (t) => {
  const reg = new WaiterRegistry();
  const log: string[] = [];
  const w = waiter('a@x.test', 'any', Date.now() + 60_000, log, 'w');
  reg.park(w);
  t.true(reg.remove(w));
  t.false(reg.remove(w));
  reg.deliver('a@x.test', message(null));
  t.is(reg.size, 0);
  t.deepEqual(log, []);
  reg.drain();
});

test('waiters - a deadline on the timer wheel answers timed out', async (t) => {
  let now = 1_000_000;
  const reg = new WaiterRegistry(() => now);
  const log: string[] = [];
  reg.park(waiter('a@x.test', 'any', now + 250, log, 'w'));
  now += 500;
  await new Promise((r) => setTimeout(r, 250));
  t.deepEqual(log, ['w:timeout']);
  t.is(reg.size, 0);
  reg.drain();
});
