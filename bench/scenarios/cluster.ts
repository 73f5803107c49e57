// The cluster's own figures (issue 34), each on a fresh etcd + 3 `mailcue shard` + 1 `mailcue front`
// on loopback with DESIGN §8's defaults: 3 copies of every slot, minimum in-sync 2.
//   cluster-ingest: smtp-ingest's load (small OTP mails over 10 connections, every one read back)
//     through the cluster, judged against the embedded smtp-ingest of the same run.
//   failover: the primary of an inbox's slot is killed (SIGKILL), and a sender retries a mail to
//     that inbox every 50 ms: kill → first 250, over 5 kills (quick 2), each shard restarted on its
//     data and the map healthy again before the next.
import path from 'node:path';
import { connectEtcd } from '../../src/cluster/etcd.js';
import { slotOf } from '../../src/cluster/slots.js';
import { readClusterStatus, type ClusterStatus } from '../../src/cluster/status.js';
import { startEtcd } from '../lib/etcd.js';
import { Mailcue } from '../lib/mailcue.js';
import { smallMail } from '../lib/mails.js';
import { sleep, stop, type Child } from '../lib/proc.js';
import { foreignCores, measure, type Context, type Scenario } from '../lib/scenario.js';
import { SmtpConnection } from '../lib/smtp-client.js';
import { percentiles, round } from '../lib/stats.js';
import { smtpIngest } from './smtp-ingest.js';

const SHARDS = 3;
const REPLICAS = 3;
const MIN_INSYNC = 2;

type Ns = ReturnType<typeof connectEtcd>['ns'];

/** Every slot served by a live member with its full in-sync set, no move running. */
function healthy(s: ClusterStatus, members: number): boolean {
  return s.members.length === members && s.moves.length === 0 && s.unavailable.length === 0
    && s.members.every((m) => m.state === 'active') && s.map.every((e) => e.primary !== null && e.isr.length >= REPLICAS);
}

async function untilHealthy(ns: Ns, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await readClusterStatus(ns, REPLICAS);
    if (healthy(s, SHARDS)) return;
    if (Date.now() > end) throw new Error(`cluster not healthy after ${timeoutMs} ms: ${JSON.stringify(s.members)}, ${s.unavailable.length} slots unavailable`);
    await sleep(250);
  }
}

/** A cluster of the defaults with its etcd; `run` gets it healthy, everything stops afterwards. */
async function withCluster<T>(ctx: Context, run: (mc: Mailcue, ns: Ns) => Promise<T>): Promise<T> {
  const etcdServer = await startEtcd(path.join(ctx.tmp, `etcd-${Date.now()}`));
  try {
    const mc = await Mailcue.start({
      etcd: etcdServer.endpoint, shards: SHARDS, fronts: 1, nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean),
      env: { MAILCUE_REPLICAS: String(REPLICAS), MAILCUE_MIN_INSYNC: String(MIN_INSYNC), MAILCUE_LOG_LEVEL: 'warn' },
    });
    const etcd = connectEtcd({ endpoints: [etcdServer.endpoint], prefix: mc.etcdPrefix! });
    try {
      await untilHealthy(etcd.ns, 120_000);
      return await run(mc, etcd.ns);
    } finally {
      etcd.close();
      await mc.stop();
    }
  } finally {
    await stop(etcdServer.child);
  }
}

interface IngestParams {
  connections: number;
  mails: number;
  warmupMails: number;
  inboxes: number;
}

export const clusterIngest: Scenario<IngestParams> = {
  name: 'cluster-ingest',
  title: 'smtp-ingest through etcd + 3 shards + 1 front, 3 copies of every slot, minimum in-sync 2; every mail read back',
  full: { connections: 10, mails: 5000, warmupMails: 2000, inboxes: 1000 },
  quick: { connections: 10, mails: 1000, warmupMails: 300, inboxes: 200 },
  timeLimitS: (quick) => (quick ? 240 : 480),
  async run(ctx, p) {
    return withCluster(ctx, async (mc) => {
      const key = await mc.createAccount();
      const readInboxes = await mc.createInboxes(key, 'c', p.inboxes);
      const inner: Context = { ...ctx, mailcue: mc, key, readInboxes, log: (m) => ctx.log(`cluster-ingest: ${m}`) };
      const { mails, connections, warmupMails } = p;
      const result = await smtpIngest.run(inner, { mails, connections, warmupMails });
      return { ...result, layout: `${mc.layout}, ${REPLICAS} copies, min in-sync ${MIN_INSYNC}` };
    });
  },
};

interface FailoverParams {
  kills: number;
  /** Longest a kill may stay without a 250 before the scenario fails. */
  maxOutageMs: number;
}

/** Sends one mail; the SMTP reply code (0 when the connection failed). */
async function tryMail(port: number, to: string, seq: number): Promise<number> {
  const conn = await SmtpConnection.open('127.0.0.1', port).catch(() => null);
  if (!conn) return 0;
  try {
    return (await conn.send(smallMail(to, `failover-${seq}`, seq))).code;
  } catch {
    return 0;
  } finally {
    conn.destroy();
  }
}

export const failover: Scenario<FailoverParams> = {
  name: 'failover',
  title: 'kill -9 of the primary of an inbox\'s slot (3 shards, 3 copies, min in-sync 2): kill → first 250 to that inbox, 5 kills',
  full: { kills: 5, maxOutageMs: 60_000 },
  quick: { kills: 2, maxOutageMs: 60_000 },
  timeLimitS: (quick) => (quick ? 300 : 600),
  async run(ctx, p) {
    return withCluster(ctx, async (mc, ns) => {
      const key = await mc.createAccount();
      const inboxes = await mc.createInboxes(key, 'f', p.kills);
      const outages: number[] = [];
      const refusals: Record<string, number> = {};
      let seq = 0;
      const m = await measure(() => mc.pids, async () => {
        for (let k = 0; k < p.kills; k++) {
          const inbox = inboxes[k]!;
          const status = await readClusterStatus(ns, REPLICAS);
          const primary = status.map[slotOf(inbox)]!.primary!;
          const victim = mc.processes.find((c: Child) => !c.exited && c.name === `mailcue-shard-${primary.slice('shard-'.length)}`);
          if (!victim) throw new Error(`no live process for ${primary}`);
          if ((await tryMail(mc.smtpPort, inbox, ++seq)) !== 250) throw new Error(`${inbox} refuses mail before the kill`);
          const t0 = performance.now();
          process.kill(victim.pid, 'SIGKILL');
          for (;;) {
            const code = await tryMail(mc.smtpPort, inbox, ++seq);
            if (code === 250) break;
            refusals[code] = (refusals[code] ?? 0) + 1;
            if (performance.now() - t0 > p.maxOutageMs) throw new Error(`no 250 for ${inbox} within ${p.maxOutageMs} ms of killing ${primary}`);
            await sleep(50);
          }
          outages.push(performance.now() - t0);
          ctx.log(`failover: ${primary} killed, first 250 after ${Math.round(outages[outages.length - 1]!)} ms`);
          await victim.exitPromise;
          await mc.addShard(Number(primary.slice('shard-'.length)));
          await untilHealthy(ns, 180_000);
        }
      });
      const lat = percentiles(outages);
      return {
        ops: outages.length, duration_s: round(outages.reduce((s, v) => s + v, 0) / 1000), ops_per_s: 0, ...lat, peak_rss_mb: {},
        client_cpu_share: null, generator: 'one SMTP sender retrying every 50 ms (node)', kills: outages.length, foreign_cpu_cores: foreignCores(m),
        outage_ms: outages.map((v) => Math.round(v)), refusals_while_down: refusals, layout: `${mc.layout}, ${REPLICAS} copies, min in-sync ${MIN_INSYNC}`,
      };
    });
  },
};
