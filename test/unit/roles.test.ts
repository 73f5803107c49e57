// Roles between tiers (src/rpc/roles.ts): which tier a certificate names, and what each may send.
import test from 'ava';
import { callerOf, mayCall, peerRole, roleOfCertificate } from '../../src/rpc/roles.js';

test('roles - a certificate names its tier in a URI SAN; none, both or another URI is no role', (t) => {
  t.is(roleOfCertificate({ subjectaltname: 'IP Address:127.0.0.1, DNS:localhost, URI:spiffe://mailcue/front' }), 'front');
  t.is(roleOfCertificate({ subjectaltname: 'URI:spiffe://mailcue/shard, DNS:shard-0.mailcue' }), 'shard');
  t.is(roleOfCertificate({ subjectaltname: 'DNS:localhost' }), null);
  t.is(roleOfCertificate({ subjectaltname: 'URI:spiffe://mailcue/front, URI:spiffe://mailcue/shard' }), null);
  t.is(roleOfCertificate({ subjectaltname: 'URI:spiffe://mailcue/shard/x, DNS:spiffe://mailcue/shard' }), null);
  t.is(roleOfCertificate(undefined), null);
});

test('roles - over TLS a peer without a role has a front\'s rights; without TLS nothing is checked', (t) => {
  t.is(peerRole({ transportSecurityType: 'ssl', sslPeerCertificate: { subjectaltname: 'URI:spiffe://mailcue/shard' } as never }), 'shard');
  t.is(peerRole({ transportSecurityType: 'ssl', sslPeerCertificate: { subjectaltname: 'DNS:localhost' } as never }), 'front');
  t.is(peerRole({ transportSecurityType: 'ssl' }), 'front');
  t.is(peerRole(null), 'shard');
});

test('roles - slot moves and replication come from shards only; everything else from either', (t) => {
  for (const type of ['slot.head', 'slot.freeze', 'slot.release', 'slot.position', 'slot.positions', 'slot.resync', 'slot.resync_empty', 'slot.replicate'] as const) {
    t.is(callerOf(type), 'shard', type);
    t.false(mayCall('front', type), type);
    t.true(mayCall('shard', type), type);
  }
  for (const type of ['inbox.deliver', 'account.admit', 'account.sealed_key', 'message.wait', 'feed.watch', 'shard.stats'] as const) {
    t.true(mayCall('front', type), type);
    t.true(mayCall('shard', type), type);
  }
});
