// Worker-thread entry of the routed floors: Mailcue's own shard gRPC server (src/rpc/shard-server.ts)
// on a unix socket, with a dispatcher in place of the actors. `echo` answers every command at once
// with a fixed JSON text the size of a one-message list; `store` puts each command's bytes into an
// LMDB env and answers once the commit is durable, as a delivery's 250 waits for. No indexes,
// counters or oplog: what is left is the channel, and for `store` one durable put.
import { parentPort, workerData } from 'node:worker_threads';
import { open } from 'lmdb';
import { bindServer, createShardServer } from '../../dist/rpc/shard-server.js';
import { createLogger } from '../../dist/obs/logger.js';

const { target, mode, dataDir } = workerData;
let dispatch;
if (mode === 'store') {
  const db = open({ path: dataDir, encoding: 'binary' });
  let key = 0;
  dispatch = (command) => db.put(++key, command.raw).then(() => true);
} else {
  const reply = `{"messages":[${'"x",'.repeat(145)}"x"]}`;
  dispatch = () => reply;
}
const server = createShardServer({ dispatch }, createLogger('error', 'floor-shard'));
await bindServer(server, target);
parentPort.postMessage('ready');
