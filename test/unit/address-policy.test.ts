import test from 'ava';
import { isRefusedAddress } from '../../src/security/address-policy.js';

// The IANA special-purpose IPv4 and IPv6 registries as DESIGN §7 lists them, and the addresses of
// issue 11 that the hand-made list let through.
const REFUSED = [
  '0.0.0.0', '0.1.2.3', '10.1.2.3', '100.64.0.1', '127.0.0.1', '127.255.255.254', '169.254.169.254', '172.16.0.1', '192.0.0.8',
  '192.0.2.1', '192.88.99.1', '192.168.1.1', '198.18.0.1', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250',
  '240.0.0.1', '255.255.255.255',
  '::', '::1', '::7f00:1', '::a00:1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:8.8.8.8', '64:ff9b::7f00:1', '64:ff9b::808:808',
  '64:ff9b:1::7f00:1', '64:ff9b:1::1', '100::1', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:2::1', '2001:db8::1',
  '2001:10::1', '2001:20::1', '2002:7f00:1::1', '2002:808:808::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fec0::1', 'ff02::1',
  '3fff::1', '4000::1', 'not-an-address',
];
const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'];

test('address policy - every special-purpose IPv4 and IPv6 address is refused, including embedded IPv4', (t) => {
  for (const a of REFUSED) t.true(isRefusedAddress(a), a);
});

test('address policy - public unicast addresses are allowed', (t) => {
  for (const a of PUBLIC) t.false(isRefusedAddress(a), a);
});
