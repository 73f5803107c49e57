import test from 'ava';
import { assertListenAllowed, isLoopbackTarget } from '../../src/rpc/tls.js';

test('tls - loopback and unix targets are local; wildcard and other addresses are not', (t) => {
  for (const local of ['127.0.0.1:7000', '127.9.9.9:1', 'localhost:7000', '[::1]:7000', 'unix:/tmp/s.sock']) t.true(isLoopbackTarget(local), local);
  for (const remote of ['0.0.0.0:7000', '[::]:7000', '10.0.0.5:7000', 'shard-0.mailcue:7000', '127.0.0.1.example:1']) t.false(isLoopbackTarget(remote), remote);
});

test('tls - a plaintext listener off loopback needs --insecure', (t) => {
  t.throws(() => assertListenAllowed('0.0.0.0:7000', null, false), { message: /--insecure/ });
  t.notThrows(() => assertListenAllowed('0.0.0.0:7000', null, true));
  t.notThrows(() => assertListenAllowed('127.0.0.1:7000', null, false));
});
