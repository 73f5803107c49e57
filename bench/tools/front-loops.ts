// `node --import tsx bench/tools/front-loops.ts [--quick] [--rounds N]`: issue 18's lever "several
// front event loops on one port", measured. The same static cluster (2 `mailcue shard` processes on
// unix sockets) runs behind 1 `mailcue front`, then behind 2 `mailcue front` processes that listen
// on one HTTP port (SO_REUSEPORT: the kernel spreads wrk's connections over them), interleaved for
// N rounds. Each layout runs the bench's smtp-ingest (which fills the read inboxes) and
// rest-get-latest. MCP is left out: a session lives in the memory of the front that opened it,
// and a client's next connection may land on the other one. Processes are separate here where
// MAILCUE_FRONT_THREADS would use worker threads; the event loops and the cores they share are
// the same. Writes bench/results/front-loops.json.
import os from 'node:os';
import path from 'node:path';
import { Mailcue } from '../lib/mailcue.js';
import { benchSession, CORES, git, runTool, writeReport } from '../lib/proc.js';
import { runScenario } from '../lib/run-scenario.js';
import type { Context, ScenarioResult } from '../lib/scenario.js';
import { restGetLatest } from '../scenarios/get-latest.js';
import { smtpIngest } from '../scenarios/smtp-ingest.js';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const ROUNDS = Math.min(5, Number(argv[argv.indexOf('--rounds') + 1] ?? NaN) || 2);
const INBOXES = QUICK ? 200 : 1000;
const RESULTS = path.resolve('bench/results/front-loops.json');

const { started, log, tmp } = benchSession('front-loops');

async function layout(fronts: number, round: number): Promise<Record<string, unknown>> {
  const mc = await Mailcue.start({ fronts, shards: 2, frontPoolThreads: 1, sharedHttpPort: true });
  try {
    const key = await mc.createAccount();
    const inboxes = await mc.createInboxes(key, 'r', INBOXES);
    const label = `${fronts} front${fronts > 1 ? 's' : ''}, round ${round}`;
    const ctx: Context = { quick: QUICK, mailcue: mc, key, readInboxes: inboxes, tls: null, tmp, results: new Map(), log: (m) => log(`${label}: ${m}`) };
    const rows: ScenarioResult[] = [];
    for (const s of [smtpIngest, restGetLatest]) rows.push(await runScenario(s, ctx));
    const [smtp, rest] = rows as [ScenarioResult, ScenarioResult];
    return {
      fronts, round, layout: mc.layout,
      smtp_mails_per_s: smtp.ops_per_s, smtp_cpu_ms_per_mail: smtp.server_cpu_ms_per_mail ?? null, smtp_error: smtp.error ?? null,
      rest_req_per_s: rest.ops_per_s, rest_p99_ms: rest.p99_ms, rest_cpu_us_per_req: rest.server_cpu_us_per_op ?? null, rest_server_cores: rest.server_cpu_cores ?? null,
      rest_error: rest.error ?? null, rest_non_2xx: rest.non_2xx ?? null,
    };
  } finally {
    await mc.stop();
  }
}

async function main(): Promise<void> {
  const runs: Record<string, unknown>[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const fronts of [1, 2]) {
      const r = await layout(fronts, round);
      runs.push(r);
      log(`${fronts} front(s), round ${round}: smtp ${r.smtp_mails_per_s} mails/s, REST ${r.rest_req_per_s} req/s (${r.rest_cpu_us_per_req} µs CPU/req, ${r.rest_server_cores} cores), p99 ${r.rest_p99_ms} ms`);
    }
  }
  const report = { commit: git('rev-parse', 'HEAD'), node: process.version, cpu: `${os.cpus()[0]?.model ?? 'unknown'} × ${CORES}`, date: new Date().toISOString(), quick: QUICK, runs };
  writeReport(RESULTS, report, started, log);
  console.log('\nfronts  round  smtp mails/s  REST req/s  µs CPU/req  server cores  REST p99 ms');
  for (const r of runs) console.log([r.fronts, r.round, r.smtp_mails_per_s, r.rest_req_per_s, r.rest_cpu_us_per_req, r.rest_server_cores, r.rest_p99_ms].map((v) => String(v ?? '-').padStart(6)).join('  '));
}

runTool('front-loops', tmp, main);
