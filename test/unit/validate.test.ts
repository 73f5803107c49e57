import test from 'ava';
import { intInRange, normalizeAddress, normalizeDomain } from '../../src/services/validate.js';
import { MailcueError } from '../../src/errors/registry.js';

test('validate - domain names follow the hostname rules', (t) => {
  t.is(normalizeDomain('Mail.Example.COM.'), 'mail.example.com');
  for (const bad of ['', ' ', 'a b.com', '-a.com', 'a-.com', `${'a'.repeat(64)}.com`, 'localhost', '10.0.0.1', 'exa_mple.com', 'a..com']) {
    t.is(normalizeDomain(bad), null, bad);
  }
  t.is(normalizeDomain(`${'a'.repeat(63)}.com`), `${'a'.repeat(63)}.com`);
});

test('validate - addresses are lowercased and checked, the same answer when asked again (they are remembered)', (t) => {
  for (let round = 0; round < 2; round++) {
    t.deepEqual(normalizeAddress('Agent+1@Mailcue.TEST'), { address: 'agent+1@mailcue.test', local: 'agent+1', domain: 'mailcue.test' });
    for (const bad of ['nobody', '@x.com', 'a@', 'a b@x.com', 'a..b@x.com', 'a@localhost']) t.is(normalizeAddress(bad), null, bad);
    t.is(normalizeAddress(`${'a'.repeat(1 << 20)}@mailcue.test`), null, 'longer than an address');
    t.is(normalizeAddress(`  ${'b'.repeat(60)}@Mailcue.test `)?.address, `${'b'.repeat(60)}@mailcue.test`);
  }
});

test('validate - ranges are refused, never clamped', (t) => {
  t.is(intInRange(undefined, 'limit', 1, 100, 10), 10);
  t.is(intInRange('20', 'limit', 1, 100, 10), 20);
  const err = t.throws(() => intInRange('101', 'limit', 1, 100, 10)) as MailcueError;
  t.is(err.code, 'invalid_parameter');
  t.regex(err.message, /limit/);
});

test('reserved addresses - role local parts, any case, before a sub-address', async (t) => {
  const { isReservedLocalPart } = await import('../../src/services/reserved-addresses.js');
  for (const local of ['postmaster', 'ABUSE', 'ssl-admin', 'admin+ca', 'noc']) t.true(isReservedLocalPart(local), local);
  for (const local of ['admins', 'postmasters', 'my-admin', 'information']) t.false(isReservedLocalPart(local), local);
});
