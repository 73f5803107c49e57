#!/usr/bin/env node
// Entry points: `mailcue serve` (embedded: front + shard worker threads), `mailcue front`,
// `mailcue shard` (cluster processes) and `mailcue admin` (account administration).
import path from 'node:path';
import { ConfigError, loadConfig, parseShardMap, type Config } from '../config/config.js';
import { createLogger } from '../obs/logger.js';
import { resolveMasterKey } from '../security/sealer.js';
import { runAdmin } from './admin.js';
import { parseArgs } from './args.js';

const USAGE = `usage:
  mailcue serve                                   front tier + MAILCUE_SHARD_COUNT shard threads
  mailcue shard --id K --listen HOST:PORT [--data DIR] [--insecure]
  mailcue front --shards 0=HOST:PORT,1=HOST:PORT
  with MAILCUE_ETCD_ENDPOINTS (a cluster; DESIGN.md §8):
  mailcue shard --id NAME --listen HOST:PORT [--advertise HOST:PORT] [--data DIR] [--insecure]
  mailcue front
  mailcue admin cluster status [--json]
  mailcue admin cluster drain NAME [--no-wait]
  mailcue admin create-account --plan PLAN [--name NAME]
  mailcue admin set-plan ACCOUNT_ID PLAN
  mailcue admin rotate-key ACCOUNT_ID`;

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
  const { startShardHost } = await import('../shard/shard-host.js');
  const { assertListenAllowed, loadTls } = await import('../rpc/tls.js');
  const tls = loadTls(config);
  assertListenAllowed(listen, tls, flags.has('insecure'));
  const masterKey = resolveMasterKey(config.masterKey, path.dirname(dataDir));
  const host = await startShardHost({ id, config, listen, dataDir, masterKey, log, tls });
  onSignals(() => host.stop());
}

async function front(config: Config, flags: Map<string, string>): Promise<void> {
  if (config.etcdEndpoints.length > 0 && !flags.has('shards')) {
    const log = createLogger(config.logLevel, 'front');
    const { clusterPlacement } = await import('./cluster-cli.js');
    const { startFront } = await import('../front/front-server.js');
    const f = await startFront(config, await clusterPlacement(config, log), log);
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

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const args = parseArgs(rest);
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'shard':
      return shard(config, args.flags);
    case 'front':
      return front(config, args.flags);
    case 'admin':
      if (args.positionals[0] === 'cluster') {
        const { runClusterAdmin } = await import('./cluster-cli.js');
        process.exitCode = await runClusterAdmin(config, args);
        return;
      }
      process.exitCode = await runAdmin(config, args);
      return;
    default:
      console.error(USAGE);
      process.exitCode = command ? 2 : 0;
  }
}

// A stray rejection (a background LMDB write, a socket error) is logged, not fatal: one bad
// request must not take every connection of the process down with it.
process.on('unhandledRejection', (reason) => {
  console.error(JSON.stringify({ level: 50, time: Date.now(), msg: 'unhandled rejection', err: String((reason as Error)?.stack ?? reason) }));
});

main().catch((err: unknown) => {
  console.error(`mailcue: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
