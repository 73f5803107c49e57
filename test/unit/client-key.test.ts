// The client a per-IP limit counts (issue 33): an IPv6 host is handed a whole /64 and can rotate
// through it, so every per-IP limit (SMTP connections and in-flight bytes, /authorize, /register,
// admin failures) keys on the /64; IPv4, and IPv4 mapped into IPv6, on the address.
import test from 'ava';
import { clientKey } from '../../src/security/client-key.js';
import { InflightBudget } from '../../src/ingress/smtp-limits.js';

test('client key - every address of one IPv6 /64 is one client; another /64 is another', (t) => {
  const a = clientKey('2001:db8:1:2::1');
  t.is(clientKey('2001:db8:1:2:ffff:ffff:ffff:fffe'), a);
  t.is(clientKey('2001:DB8:1:2:0:0:abcd:1'), a, 'case and zero runs do not matter');
  t.is(clientKey('fe80::1%eth0'), clientKey('fe80::2'), 'a zone id is not part of the client');
  t.not(clientKey('2001:db8:1:3::1'), a);
});

test('client key - IPv4 is the address, mapped or not; something unparsable is itself', (t) => {
  t.is(clientKey('192.0.2.7'), '192.0.2.7');
  t.is(clientKey('::ffff:192.0.2.7'), '192.0.2.7');
  t.not(clientKey('192.0.2.8'), clientKey('192.0.2.7'));
  t.is(clientKey('Not-An-IP'), 'not-an-ip');
});

test('inflight budget - addresses rotating through one /64 share one client\'s share', (t) => {
  const budget = new InflightBudget(4000, 1000);
  t.true(budget.take(600, clientKey('2001:db8::1')));
  t.false(budget.take(600, clientKey('2001:db8::2')), 'the same /64 is over its share');
  t.true(budget.take(600, clientKey('2001:db8:0:1::1')), 'another /64 has its own');
  budget.release(600, clientKey('2001:db8::1'));
  t.true(budget.take(600, clientKey('2001:db8::ffff')));
});
