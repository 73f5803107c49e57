// `npm run bench [-- --quick] [-- --only a,b]` (or `npm run bench -- chaos [--quick]`): starts a fresh Mailcue (plan limits lifted), runs
// every scenario against it (and the floors and MailDev beside it, in the same run), prints the
// results and the targets, and writes bench/results/latest.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findWrk } from './lib/http-load.js';
import { Mailcue } from './lib/mailcue.js';
import { benchSession, CORES, git, stopAll } from './lib/proc.js';
import { evaluateTargets, formatTables } from './lib/report.js';
import { writePerformanceDocs } from './lib/docs-writer.js';
import { runScenario } from './lib/run-scenario.js';
import type { Context, Scenario, ScenarioResult } from './lib/scenario.js';
import { makeTls, type TlsFiles } from './lib/tls.js';
import { floorGrpc } from './scenarios/floor-grpc.js';
import { floorSmtp, floorSmtpShard } from './scenarios/floor-smtp.js';
import { floorUws, floorUwsShard } from './scenarios/floor-uws.js';
import { mcpGetLatest, restGetLatest } from './scenarios/get-latest.js';
import { parkedWaiters } from './scenarios/parked-waiters.js';
import { peerMaildev } from './scenarios/peer-maildev.js';
import { smtpIngest, smtpIngestLarge } from './scenarios/smtp-ingest.js';
import { wakeLatency } from './scenarios/wake-latency.js';
import { inboxSize } from './scenarios/inbox-size.js';
import { deleteLargeInbox } from './scenarios/delete-large-inbox.js';
import { accounts } from './scenarios/accounts.js';
import { parked } from './scenarios/parked.js';
import { webhookDelivery } from './scenarios/webhook-delivery.js';
import { hostileIngest } from './scenarios/hostile-ingest.js';
import { clusterIngest, failover } from './scenarios/cluster.js';

/** In run order. The SMTP scenarios fill the read inboxes the read scenarios use. Scenarios that
 * start their own servers (parked-waiters, peer-maildev) run after the shared Mailcue is stopped. */
const SHARED: Scenario[] = [floorUws, floorUwsShard, floorGrpc, floorSmtp, floorSmtpShard, smtpIngest, smtpIngestLarge, restGetLatest, mcpGetLatest, wakeLatency, webhookDelivery];
const OWN: Scenario[] = [parkedWaiters, peerMaildev, inboxSize, deleteLargeInbox, accounts, parked, hostileIngest, clusterIngest, failover];
const READ_INBOXES = 1000;
const RESULTS = path.resolve('bench/results/latest.json');

/** BENCH_SERVICE_ENV="NAME=value …": settings for the measured service, to weigh a configuration against the defaults. */
function serviceEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (process.env.BENCH_SERVICE_ENV ?? '').split(' ').filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`BENCH_SERVICE_ENV: "${pair}" is not NAME=value`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

function parseArgs(argv: string[]) {
  const quick = argv.includes('--quick');
  // A full run records its figures in docs/performance.md; a quick one only when asked (`--docs`).
  const docs = argv.includes('--docs') || (!quick && !argv.includes('--no-docs'));
  const i = argv.indexOf('--only');
  const only = i >= 0 ? new Set(argv[i + 1]?.split(',')) : null;
  return { quick, only, docs };
}

function wrkVersion(wrk: string): string {
  let out: string;
  try {
    out = execFileSync(wrk, ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    out = String((err as { stdout?: string }).stdout ?? '');
  }
  return /wrk \S+/.exec(out)?.[0] ?? 'wrk';
}

async function main(): Promise<void> {
  const { quick, only, docs } = parseArgs(process.argv.slice(2));
  if (!existsSync('dist/cli/main.js')) throw new Error('dist/ is missing: run `npm run build` (npm run bench does)');
  const { started, log, tmp } = benchSession('bench', 5);
  const results = new Map<string, ScenarioResult>();
  const ordered: ScenarioResult[] = [];
  const wanted = (s: Scenario) => !only || only.has(s.name);
  const wrk = findWrk();
  let tls: TlsFiles | null = null;
  try {
    tls = makeTls(tmp);
  } catch (err) {
    log(`openssl failed, webhook-delivery will be skipped: ${(err as Error).message}`);
  }
  let mailcue: Mailcue | null = null;
  try {
    if (SHARED.some(wanted)) {
      log(`starting Mailcue (${quick ? 'quick' : 'full'} run)`);
      mailcue = await Mailcue.start({
        env: { ...(tls ? { MAILCUE_WEBHOOK_CA_FILE: tls.caFile } : {}), ...serviceEnv() },
        nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean),
      });
    }
    const key = mailcue ? await mailcue.createAccount() : '';
    const readInboxes = mailcue ? await mailcue.createInboxes(key, 'r', READ_INBOXES) : Array.from({ length: READ_INBOXES }, (_, i) => `r${i}@mailcue.test`);
    const ctx: Context = { quick, mailcue: mailcue!, key, readInboxes, tls, tmp, results, log };
    for (const s of SHARED.filter(wanted)) ordered.push(await runScenario(s, ctx));
    if (mailcue) {
      await mailcue.stop();
      mailcue = null;
    }
    for (const s of OWN.filter(wanted)) ordered.push(await runScenario(s, ctx));
  } finally {
    if (mailcue) await mailcue.stop();
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }

  const targets = evaluateTargets(results);
  const report = {
    commit: git('rev-parse', 'HEAD'),
    dirty: git('status', '--porcelain', '--', 'src', 'proto', 'package.json').length > 0,
    node: process.version,
    cpu: `${os.cpus()[0]?.model ?? 'unknown'} × ${CORES}`,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    date: new Date().toISOString(),
    quick,
    http_generator: wrk ? `${wrkVersion(wrk)}, 1 thread` : 'node raw-socket HTTP generator',
    wall_s: Math.round((Date.now() - started) / 100) / 10,
    scenarios: ordered,
    targets,
  };
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(report, null, 2) + '\n');
  console.log(`\nMailcue bench (${quick ? 'quick' : 'full'}) · commit ${report.commit.slice(0, 10)}${report.dirty ? '+dirty' : ''} · node ${report.node} · ${report.cpu} · ${report.http_generator}\n`);
  console.log(formatTables(ordered, targets));
  const dated = path.resolve(`bench/results/run-${report.date.replace(/[:.]/g, '-')}-${report.commit.slice(0, 10)}.json`);
  writeFileSync(dated, JSON.stringify(report, null, 2) + '\n');
  if (docs) console.log(`wrote ${path.relative(process.cwd(), writePerformanceDocs(report, ordered, targets))}`);
  console.log(`\nwrote ${path.relative(process.cwd(), RESULTS)} and ${path.relative(process.cwd(), dated)} in ${report.wall_s} s`);
  if (ordered.some((r) => r.error)) process.exitCode = 1;
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    void stopAll().finally(() => process.exit(130));
  });
}

// `npm run bench -- chaos` runs the replication and failover bench instead (bench/tools/chaos.ts
// runs on import and exits on its own).
if (process.argv.slice(2).includes('chaos')) {
  await import('./tools/chaos.js');
} else if (process.argv.slice(2).includes('soak')) {
  // `npm run bench -- soak [--quick]`: data dir against live data over time (bench/tools/soak.ts).
  await import('./tools/soak.js');
} else {
  main().catch(async (err: unknown) => {
    console.error(`bench: ${(err as Error).stack ?? String(err)}`);
    await stopAll();
    process.exit(1);
  });
}
