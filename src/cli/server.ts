// The server-side entry points: `mailcue serve` (embedded: front + shard worker threads),
// `mailcue front`, `mailcue shard` (cluster processes) and `mailcue admin` (account
// administration). Loaded only when one of them runs, so the client starts without them.
import path from 'node:path';
import { ConfigError, loadConfig, parseShardMap, type Config } from '../config/config.js';
import { reportBoundPorts } from '../obs/bound-ports.js';
import { createLogger } from '../obs/logger.js';
import { resolveMasterKey } from '../security/sealer.js';
import { prepareDataDir } from '../storage/data-dir.js';
import { runAdmin } from './admin.js';
import type { Args } from './args.js';

function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

async function serve(config: Config): Promise<void> {
  const log = createLogger(config.logLevel, 'mailcue');
  prepareDataDir(config.dataDir);
  const { startEmbeddedShards } = await import('../shard/supervisor.js');
  const { startFront } = await import('../front/front-server.js');
  const masterKey = resolveMasterKey(config.masterKey, config.dataDir);
  const shards = await startEmbeddedShards(config, masterKey, log);
  const front = await startFront(config, shards.shards, log);
  onSignals(async () => {
    await front.stop();
    await shards.stop();
  });
}

async function shard(config: Config, flags: Map<string, string>): Promise<void> {
  if (config.etcdEndpoints.length > 0) {
    const { clusterShard } = await import('./cluster-cli.js');
    const member = await clusterShard(config, flags);
    onSignals(() => member.stop());
    return;
  }
  const id = Number(flags.get('id'));
  const listen = flags.get('listen');
  if (!Number.isInteger(id) || id < 0 || !listen) throw new ConfigError('mailcue shard needs --id K and --listen HOST:PORT');
  const dataDir = path.resolve(flags.get('data') ?? path.join(config.dataDir, `shard-${id}`));
  const log = createLogger(config.logLevel, `shard-${id}`);
  prepareDataDir(dataDir);
  const { startShardHost } = await import('../shard/shard-host.js');
  const { assertListenAllowed, loadTls } = await import('../rpc/tls.js');
  const tls = loadTls(config);
  assertListenAllowed(listen, tls, flags.has('insecure'));
  const masterKey = resolveMasterKey(config.masterKey, path.dirname(dataDir));
  const host = await startShardHost({ id, config, listen, dataDir, masterKey, log, tls });
  reportBoundPorts(config, { grpc: host.port });
  onSignals(() => host.stop());
}

async function front(config: Config, flags: Map<string, string>): Promise<void> {
  if (config.etcdEndpoints.length > 0 && !flags.has('shards')) {
    const log = createLogger(config.logLevel, 'front');
    const { startFront } = await import('../front/front-server.js');
    const f = await startFront(config, 'slot-map', log);
    onSignals(() => f.stop());
    return;
  }
  const raw = flags.get('shards');
  const shards = raw ? parseShardMap(raw, '--shards') : config.shards;
  if (shards.length === 0) throw new ConfigError('mailcue front needs --shards or MAILCUE_SHARDS');
  const log = createLogger(config.logLevel, 'front');
  const { startFront } = await import('../front/front-server.js');
  const f = await startFront(config, shards, log);
  onSignals(() => f.stop());
}

/** Runs a server command with the arguments parsed as before the client existed. */
export async function runServerCommand(command: 'serve' | 'shard' | 'front' | 'admin', args: Args): Promise<number> {
  const config = loadConfig();
  switch (command) {
    case 'serve':
      await serve(config);
      return 0;
    case 'shard':
      await shard(config, args.flags);
      return 0;
    case 'front':
      await front(config, args.flags);
      return 0;
    case 'admin':
      if (args.positionals[0] === 'cluster') {
        const { runClusterAdmin } = await import('./cluster-cli.js');
        return runClusterAdmin(config, args);
      }
      return runAdmin(config, args);
  }
}
