// inbox-size: how the cost of an inbox's reads grows with the inbox (issue 37). One inbox grows to
// 100, 10,000 and 100,000 messages (seeded through the storage layer of the stopped data dir:
// copies of a real SMTP mail); at each size the same requests run and the server's CPU per request
// is read: the newest page (list), a search (`q`, a word in one message of 1,000), `unread_only`
// (one message of 1,000 unread), a `since` wait answered at once (since the oldest message), and
// an attachment download (~73 KB, stored at ingest). Flat means the 100,000 figure is within 1.5×
// of the 100 one.
import { Mailcue } from '../lib/mailcue.js';
import { largeMail, smallMail } from '../lib/mails.js';
import { jsonRequest } from '../lib/net-util.js';
import { probe, quiet, sendMails, type ProbeResult } from '../lib/probe.js';
import type { Scenario } from '../lib/scenario.js';
import { seedInbox } from '../lib/seed.js';

interface Params {
  sizes: number[];
  requests: number;
  warmup: number;
}

const OPS = ['list', 'q', 'unread_only', 'since', 'attachment'] as const;
const NEEDLE = 'needle';

export const inboxSize: Scenario<Params> = {
  name: 'inbox-size',
  title: 'one inbox at 100 / 10,000 / 100,000 messages: list, q, unread_only, since wait, attachment download; server CPU per request',
  full: { sizes: [100, 10_000, 100_000], requests: 400, warmup: 50 },
  quick: { sizes: [100, 1000, 5000], requests: 40, warmup: 10 },
  timeLimitS: (quick) => (quick ? 400 : 1200),
  async run(ctx, p) {
    const mc = await Mailcue.start({ nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) });
    try {
      const key = await mc.createAccount();
      const [address] = await mc.createInboxes(key, 'size', 1);
      const inbox = encodeURIComponent(address!);
      // Two real mails: the attachment one first (oldest), then the template every seeded copy is made of.
      await sendMails(mc.smtpPort, [largeMail(address!, 'attached', 1), smallMail(address!, 'template', 2)]);
      const listed = await jsonRequest('GET', `${mc.base}/v1/inboxes/${inbox}/messages?limit=2`, { token: key });
      const [template, attached] = listed.body.data as { id: string }[];
      if (!template || !attached) throw new Error(`inbox-size: the two mails did not arrive: ${JSON.stringify(listed.body).slice(0, 300)}`);
      const paths: Record<(typeof OPS)[number], string> = {
        list: `/v1/inboxes/${inbox}/messages?limit=10`,
        q: `/v1/inboxes/${inbox}/messages?limit=10&q=${NEEDLE}`,
        unread_only: `/v1/inboxes/${inbox}/messages?limit=10&unread_only=true`,
        since: `/v1/inboxes/${inbox}/messages/wait?timeout=10&since=${attached.id}`,
        attachment: `/v1/inboxes/${inbox}/messages/${attached.id}/attachments/0`,
      };
      const curve: Record<string, Record<string, number | null>> = {};
      let have = 2;
      let seedS = 0;
      for (const size of p.sizes) {
        const add = size - have;
        if (add > 0) {
          ctx.log(`inbox-size: seeding ${add} messages (to ${size})`);
          await mc.restart(async () => {
            seedS += await seedInbox(mc.dataDir, {
              address: address!, templateId: template.id, count: add, from: have,
              subject: (i) => (i % 1000 === 999 ? `Your ${NEEDLE} code ${i}` : `Your code ${i}`), read: (i) => i % 1000 !== 999,
            });
          });
          have = size;
        }
        const background = await quiet(mc);
        if (background >= 0.05) ctx.log(`inbox-size ${size}: still ${background.toFixed(2)} cores busy after 60 s`);
        const point: Record<string, number | null> = {};
        // The service was restarted on the seeded data: every op warms up before any is measured,
        // so the first one measured does not carry the compiling of the code they share.
        for (const op of OPS) await probe(mc, key, [paths[op]], p.warmup, 4, 0);
        for (const op of OPS) {
          await probe(mc, key, [paths[op]], p.warmup, 4, 0);
          const r: ProbeResult = await probe(mc, key, [paths[op]], p.requests);
          point[`${op}_cpu_us`] = r.cpu_us;
          point[`${op}_p50_ms`] = r.p50_ms;
          point[`${op}_p99_ms`] = r.p99_ms;
          point[`${op}_foreign_cores`] = r.foreign_cpu_cores;
        }
        curve[String(size)] = point;
        ctx.log(`inbox-size ${size}: ${OPS.map((op) => `${op} ${point[`${op}_cpu_us`]} µs`).join(', ')}`);
      }
      const foreign = Math.max(...Object.values(curve).flatMap((pt) => OPS.map((op) => pt[`${op}_foreign_cores`] ?? 0)));
      const largest = curve[String(p.sizes[p.sizes.length - 1])]!;
      return {
        ops: p.sizes.length * OPS.length * p.requests, duration_s: 0, ops_per_s: 0, p50_ms: largest.list_p50_ms, p99_ms: largest.list_p99_ms,
        peak_rss_mb: {}, client_cpu_share: null, generator: 'undici, 4 requests in flight', foreign_cpu_cores: foreign, curve, seed_s: seedS,
        unit: 'server CPU µs per request', sizes: p.sizes,
      };
    } finally {
      await mc.stop();
    }
  },
};
