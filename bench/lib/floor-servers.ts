// Entry of the floor servers, each in its own process: `uws PORT` (uWebSockets.js hello world),
// `grpc TARGET` (grpc-js echo), `smtp PORT` (smtp-server + mailparser: every mail parsed, nothing
// stored), and the floors of the architecture's own paths, `uws-shard PORT,DIR` and
// `smtp-shard PORT,DIR` (shard threads' sockets and stores under DIR). Prints "ready" once
// listening; stops on SIGTERM.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { startGrpcEchoServer } from './grpc-echo.js';

const [kind, where] = process.argv.slice(2);

/** Two shard worker threads (floor-shard.mjs) and Mailcue's client of each. */
async function startShards(dir: string, mode: 'echo' | 'store') {
  mkdirSync(dir, { recursive: true });
  // dist/, as the service runs it (and as the shard thread, which runs without tsx, must load it).
  const { ShardClient } = (await import('../../dist/rpc/shard-client.js' as string)) as typeof import('../../src/rpc/shard-client.js');
  return Promise.all([0, 1].map(async (i) => {
    const target = `unix:${dir}/floor-shard-${i}.sock`;
    const worker = new Worker(new URL('./floor-shard.mjs', import.meta.url), { workerData: { target, mode, dataDir: `${dir}/floor-shard-${i}` } });
    await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    const client = new ShardClient(i, target);
    await client.waitForReady(10_000);
    return client;
  }));
}

if (kind === 'uws') {
  const uWS = createRequire(import.meta.url)('uWebSockets.js') as typeof import('uWebSockets.js');
  uWS.App()
    .any('/*', (res) => {
      res.end('Hello World!');
    })
    .listen('127.0.0.1', Number(where), (socket) => {
      if (!socket) process.exit(1);
      console.log('ready');
    });
} else if (kind === 'uws-shard') {
  // uWS in front of two shard threads: each request is one round trip over Mailcue's own front→shard
  // channel (ShardClient: bidi streams of batched envelopes over unix sockets), as a routed read is.
  const uWS = createRequire(import.meta.url)('uWebSockets.js') as typeof import('uWebSockets.js');
  const [port, dir] = where!.split(',');
  const shards = await startShards(dir!, 'echo');
  let turn = 0;
  uWS.App()
    .get('/*', (res) => {
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      shards[turn++ & 1]!.call({ type: 'message.list_view' } as never).then(
        (body) => {
          if (!aborted) res.cork(() => res.writeHeader('Content-Type', 'application/json; charset=utf-8').end(body as string));
        },
        () => {
          if (!aborted) res.cork(() => res.writeStatus('500 Internal Server Error').end());
        },
      );
    })
    .listen('127.0.0.1', Number(port), (socket) => {
      if (!socket) process.exit(1);
      console.log('ready');
    });
} else if (kind === 'smtp-shard') {
  // smtp-server whose mails take the path the architecture fixes for ingest: parsed in a piscina pool
  // (a thread per core), then sent over the front→shard channel to one of two shard threads that
  // store the raw bytes and answer once the commit is durable; only then the 250.
  const { SMTPServer } = await import('smtp-server');
  const { Piscina } = await import('piscina');
  const [port, dir] = where!.split(',');
  const shards = await startShards(dir!, 'store');
  // Sized as Mailcue's pool is (src/pool/work-pool.ts): piscina's defaults end idle threads at once.
  const threads = availableParallelism();
  const pool = new Piscina({ filename: new URL('./floor-parse.mjs', import.meta.url).href, minThreads: threads, maxThreads: threads, idleTimeout: 60_000 });
  // As Mailcue's pool does (src/pool/work-pool.ts): the mails of one event-loop turn cross to a
  // parse thread as one task, up to 8.
  let batch: { raw: Buffer; done: (parsed: unknown) => void; fail: (err: Error) => void }[] = [];
  const parse = (raw: Buffer) => new Promise<unknown>((done, fail) => {
    if (batch.push({ raw, done, fail }) === 1) setImmediate(flush);
    if (batch.length >= 8) flush();
  });
  const flush = () => {
    const items = batch;
    batch = [];
    if (items.length === 0) return;
    pool.run(items.map((i) => i.raw)).then(
      (parsed: unknown[]) => items.forEach((item, k) => item.done(parsed[k])),
      (err: Error) => items.forEach((item) => item.fail(err)),
    );
  };
  let turn = 0;
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], size: 10 * 1024 * 1024, logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        parse(raw)
          .then((parsed) => shards[turn++ & 1]!.call({ type: 'inbox.deliver', raw, parsed } as never))
          .then(() => callback(), (err: Error) => callback(err));
      });
    },
  });
  server.listen(Number(port), '127.0.0.1', () => console.log('ready'));
} else if (kind === 'grpc') {
  await startGrpcEchoServer(where!);
  console.log('ready');
} else if (kind === 'smtp') {
  const { SMTPServer } = await import('smtp-server');
  const { simpleParser } = await import('mailparser');
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], size: 10 * 1024 * 1024, logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(() => callback(), (err: Error) => callback(err));
    },
  });
  server.listen(Number(where), '127.0.0.1', () => console.log('ready'));
} else {
  console.error('usage: floor-servers.ts uws PORT | grpc TARGET | smtp PORT');
  process.exit(2);
}
process.on('SIGTERM', () => process.exit(0));
