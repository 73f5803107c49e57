// delete-large-inbox: an inbox of 100,000 messages is deleted while a reader keeps reading another
// inbox on the same shard (issue 37). The figure is the reader's latency while the deletion runs:
// the inbox leaves the API at once and its messages go in bounded batches, so no read of the
// neighbour should wait more than 50 ms (p99). The deletion's own time (`reclaim_s`) is until the
// shards report no removal pending.
import { Mailcue } from '../lib/mailcue.js';
import { smallMail } from '../lib/mails.js';
import { jsonRequest } from '../lib/net-util.js';
import { get, sendMails } from '../lib/probe.js';
import { sleep } from '../lib/proc.js';
import { cores, foreignCores, measure, type Scenario } from '../lib/scenario.js';
import { sameShardAddress, seedInbox } from '../lib/seed.js';
import { percentiles } from '../lib/stats.js';

interface Params {
  messages: number;
  readers: number;
  /** Reads before the DELETE, the reader's baseline. */
  baselineMs: number;
  /** Cap on the deletion's wait. */
  maxReclaimMs: number;
}

export const deleteLargeInbox: Scenario<Params> = {
  name: 'delete-large-inbox',
  title: 'DELETE an inbox of 100,000 messages while 2 readers read another inbox on the same shard: reader p99',
  full: { messages: 100_000, readers: 2, baselineMs: 2000, maxReclaimMs: 240_000 },
  quick: { messages: 5000, readers: 2, baselineMs: 500, maxReclaimMs: 30_000 },
  timeLimitS: (quick) => (quick ? 300 : 900),
  async run(ctx, p) {
    const mc = await Mailcue.start({ nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) });
    try {
      const key = await mc.createAccount();
      const [big] = await mc.createInboxes(key, 'large', 1);
      const neighbour = sameShardAddress(big!, 'neighbour');
      const made = await jsonRequest('POST', `${mc.base}/v1/inboxes`, { token: key, body: { address: neighbour } });
      if (made.status !== 201) throw new Error(`POST /v1/inboxes → ${made.status}`);
      await sendMails(mc.smtpPort, [smallMail(big!, 'template', 1), smallMail(neighbour, 'n1', 2), smallMail(neighbour, 'n2', 3)]);
      const listed = await jsonRequest('GET', `${mc.base}/v1/inboxes/${encodeURIComponent(big!)}/messages?limit=1`, { token: key });
      const templateId = (listed.body.data as { id: string }[])[0]!.id;
      ctx.log(`delete-large-inbox: seeding ${p.messages} messages`);
      let seedS = 0;
      await mc.restart(async () => {
        seedS = await seedInbox(mc.dataDir, { address: big!, templateId, count: p.messages - 1, subject: (i) => `m ${i}`, read: () => false });
      });
      const before = await mc.gauge('mailcue_stored_messages');
      const path = `/v1/inboxes/${encodeURIComponent(neighbour)}/messages?limit=1`;
      const baseline: number[] = [];
      const during: number[] = [];
      let phase: 'baseline' | 'during' | 'done' = 'baseline';
      const readers = Array.from({ length: p.readers }, async () => {
        for (let n = 0; phase !== 'done' && n < 10_000_000; n++) {
          const t0 = performance.now();
          await get(mc.base, path, key);
          (phase === 'baseline' ? baseline : during).push(performance.now() - t0);
        }
      });
      await sleep(p.baselineMs);
      // A baseline of at least 20 reads (a loaded machine is slow to give them), within 10 s.
      for (const until = Date.now() + 10_000; baseline.length < 20 && Date.now() < until;) await sleep(50);
      const m = await measure(() => mc.pids, async () => {
        phase = 'during';
        const t0 = performance.now();
        const del = await jsonRequest('DELETE', `${mc.base}/v1/inboxes/${encodeURIComponent(big!)}`, { token: key });
        const answeredMs = performance.now() - t0;
        if (del.status !== 200) throw new Error(`DELETE → ${del.status} ${JSON.stringify(del.body)}`);
        const gone = await jsonRequest('GET', `${mc.base}/v1/inboxes/${encodeURIComponent(big!)}`, { token: key });
        const until = Date.now() + p.maxReclaimMs;
        while ((await mc.gauge('mailcue_reclaim_pending')) > 0 && Date.now() < until) await sleep(100);
        return { answeredMs, reclaimS: (performance.now() - t0) / 1000, goneStatus: gone.status, pending: await mc.gauge('mailcue_reclaim_pending') };
      });
      phase = 'done';
      await Promise.all(readers);
      const after = await mc.gauge('mailcue_stored_messages');
      const lat = percentiles(during);
      return {
        ops: during.length, duration_s: m.wall_s, ops_per_s: Math.round((during.length / m.wall_s) * 10) / 10, ...lat, peak_rss_mb: m.peak_rss_mb,
        client_cpu_share: null, generator: `undici, ${p.readers} readers in a loop`, server_cpu_cores: cores(m.server_cpu_s, m.wall_s), foreign_cpu_cores: foreignCores(m),
        messages: p.messages, removed: before - after, delete_answer_ms: Math.round(m.value.answeredMs * 10) / 10, reclaim_s: Math.round(m.value.reclaimS * 10) / 10,
        get_after_delete_status: m.value.goneStatus, reclaim_pending_at_end: m.value.pending, baseline: percentiles(baseline), seed_s: seedS,
      };
    } finally {
      await mc.stop();
    }
  },
};
