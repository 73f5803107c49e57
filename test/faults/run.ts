// `npm run test:faults [-- --only a,b] [--runs N] [--replicas 2]`: every fault of DESIGN.md §8 in its own run on a
// fresh cluster (test/helpers/faults.ts), judged by the one checker. Prints each run's findings
// and the results table as markdown, writes it as JSON to bench/results/faults-<date>.json, and
// exits 1 when any run broke a promise. Bounded: each run caps its own waits; one etcd serves the
// runs one after the other and is stopped by PID at the end.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startEtcd } from '../helpers/etcd.js';
import { stopEveryCluster } from '../helpers/fault-cluster.js';
import { FAULTS, fault, LEASE_TTL_S, markdownTable, runFault, tableRows, type RunResult } from '../helpers/faults.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const only = option('--only')?.split(',').map((n) => fault(n.trim())) ?? FAULTS;
const replicas = Number(option('--replicas') ?? 3);
const runsEach = Math.max(1, Math.min(20, Number(option('--runs') ?? 1)));
const out = option('--out') ?? path.resolve('bench/results', `faults-${new Date().toISOString().slice(0, 10)}.json`);

const etcd = await startEtcd();
// Stopped from outside (Ctrl-C, a timeout): every process started here is stopped first.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`\n${signal}: stopping every process started`);
    void stopEveryCluster().finally(() => etcd.stop()).finally(() => process.exit(130));
  });
}
const results: RunResult[] = [];
try {
  for (const def of only) {
    for (let i = 0; i < runsEach; i++) {
      console.log(`\n== ${def.name} (run ${i + 1} of ${runsEach}): ${def.title}`);
      try {
        const r = await runFault(def, { etcd, replicas, onLog: (line) => console.log(line) });
        results.push(r);
        console.log(r.violations.length === 0 ? 'checker: every promise kept' : `checker:\n  ${r.violations.join('\n  ')}`);
      } catch (err) {
        // A run that could not be carried out (a cluster that never came up) is no result: said and counted.
        console.log(`run failed: ${(err as Error).stack ?? String(err)}`);
        results.push({ fault: def.name, title: def.title, replicas, victim: '', verdict: failedVerdict(), violations: [`run failed: ${(err as Error).message}`], unsettled: null, seconds: 0, log: [] });
      }
    }
  }
} finally {
  await etcd.stop();
}

function failedVerdict(): RunResult['verdict'] {
  return { acknowledged: 0, lost: [], duplicated: [], vanished: [], phantomWebhooks: [], missingWebhooks: [], splitWebhookIds: [], pollErrors: [], refused: [], unreadable: [], unavailableWriteS: 0, unavailableReadS: 0, readErrors: 0, unacknowledged: 0 };
}

const rows = tableRows(results);
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
} catch {
  /* not a checkout */
}
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({
  date: new Date().toISOString(), commit, replicas, min_insync: 2, lease_ttl_s: LEASE_TTL_S, node: process.version, cpus: os.cpus().length, load_before: os.loadavg(),
  table: rows,
  runs: results.map((r) => ({
    fault: r.fault, victim: r.victim, seconds: r.seconds, violations: r.violations,
    acknowledged: r.verdict.acknowledged, lost: r.verdict.lost.length, duplicated: r.verdict.duplicated.length,
    vanished: r.verdict.vanished.length, phantom_webhooks: r.verdict.phantomWebhooks.length, missing_webhooks: r.verdict.missingWebhooks.length,
    split_webhook_ids: r.verdict.splitWebhookIds.length, poll_errors: r.verdict.pollErrors.length, refused: r.verdict.refused.length,
    unavailable_write_s: r.verdict.unavailableWriteS, unavailable_read_s: r.verdict.unavailableReadS, read_errors: r.verdict.readErrors,
    unacknowledged: r.verdict.unacknowledged, log: r.log,
  })),
}, null, 2)}\n`);
console.log(`\n${markdownTable(rows)}\n\nwritten to ${path.relative(process.cwd(), out)}`);
process.exitCode = results.every((r) => r.violations.length === 0) ? 0 : 1;
