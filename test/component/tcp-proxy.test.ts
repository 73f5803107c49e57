// The fault suite's partition (test/helpers/tcp-proxy.ts) against a real echo server: it forwards,
// a cut stops bytes both ways and closes nothing (old and new connections alike), a heal lets the
// held bytes through in order, and a reset closes every connection.
import test from 'ava';
import net from 'node:net';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/wait.js';

async function echoServer(): Promise<{ address: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    s.pipe(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** A client that records what it reads and whether it saw the connection end. */
async function client(port: number) {
  const socket = net.connect({ host: '127.0.0.1', port });
  const state = { got: '', closed: false, socket };
  socket.on('data', (b: Buffer) => (state.got += b.toString()));
  socket.on('close', () => (state.closed = true));
  socket.on('error', () => undefined);
  await new Promise((r) => socket.once('connect', r));
  return state;
}

/** Long enough that a forwarding proxy on loopback would have echoed many times over. */
const quiet = () => new Promise((r) => setTimeout(r, 400));

test('tcp proxy - forwards, and a cut stops both ways without closing', async (t) => {
  const echo = await echoServer();
  const proxy = await startTcpProxy(echo.address);
  t.teardown(async () => {
    await proxy.close();
    await echo.close();
  });
  const a = await client(proxy.port);
  a.socket.write('one');
  await until(() => a.got === 'one', 'echo through the proxy', 5000);

  proxy.cutOff();
  a.socket.write('two');
  // A connection made during the cut is accepted and held: no refusal, no reset, no bytes.
  const b = await client(proxy.port);
  b.socket.write('held');
  await quiet();
  t.is(a.got, 'one');
  t.is(b.got, '');
  t.false(a.closed);
  t.false(b.closed);
  t.true(proxy.cut);
  t.is(proxy.accepted, 2);

  proxy.heal();
  await until(() => a.got === 'onetwo' && b.got === 'held', 'held bytes flow on after the heal', 5000);
  a.socket.write('three');
  await until(() => a.got === 'onetwothree', 'forwarding again', 5000);

  proxy.resetAll();
  await until(() => a.closed && b.closed, 'a reset closes every connection', 5000);
  t.is(proxy.open, 0);
});

test('tcp proxy - a dead target closes the client; a client that gives up during a cut is heard only after the heal', async (t) => {
  const echo = await echoServer();
  const proxy = await startTcpProxy(echo.address);
  t.teardown(() => proxy.close());
  const a = await client(proxy.port);
  a.socket.write('x');
  await until(() => a.got === 'x', 'echo', 5000);
  proxy.cutOff();
  a.socket.end();
  await quiet();
  t.is(proxy.open, 1, 'the end is held by the cut');
  proxy.heal();
  await until(() => proxy.open === 0, 'the end crosses after the heal', 5000);

  const b = await client(proxy.port);
  await echo.close();
  await until(() => b.closed, 'the target going away closes the client', 5000);
  t.pass();
});
