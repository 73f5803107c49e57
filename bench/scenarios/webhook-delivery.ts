// webhook-delivery: 10 webhooks per inbox on 100 inboxes (urls /hook/0 … /hook/9), pointing at a
// loopback HTTPS receiver (self-signed CA given to Mailcue as MAILCUE_WEBHOOK_CA_FILE) that checks
// X-Service-Signature and answers 200; 1,000 mails over 10 SMTP connections, so 10,000 deliveries;
// signed deliveries/s from the first SMTP send to the last delivery received, and per-delivery
// latency from the end of DATA, after a warm-up run of the same kind (as every scenario has: the
// delivery path's code is otherwise measured while V8 still compiles it). The warm-up is 2,000
// mails: after 300, V8's helper threads still took 30 % of the service's CPU in the counted
// run (by /proc per thread; perf showed TurboFan), and a warm-up of 4,000 measured no more than
// 2,000. The fan-out keeps the figure about delivery: with one webhook per inbox, deliveries/s
// could never exceed smtp-ingest's mails/s.
import { Generator } from '../lib/generator.js';
import { jsonRequest, mapLimit } from '../lib/net-util.js';
import { cores, cpuShare, foreignCores, measure, type Scenario } from '../lib/scenario.js';
import type { WebhookRunResult } from '../lib/webhook-receiver.js';

interface Params {
  inboxes: number;
  webhooksPerInbox: number;
  mails: number;
  connections: number;
  warmupMails: number;
}

interface Attempt {
  status: number | null;
  error: string | null;
}

export const webhookDelivery: Scenario<Params> = {
  name: 'webhook-delivery',
  title: 'signed new_message deliveries/s to a loopback HTTPS receiver answering 200 (10 webhooks per inbox)',
  full: { inboxes: 100, webhooksPerInbox: 10, mails: 1000, connections: 10, warmupMails: 2000 },
  quick: { inboxes: 20, webhooksPerInbox: 10, mails: 200, connections: 10, warmupMails: 50 },
  timeLimitS: (quick) => (quick ? 45 : 110),
  async run(ctx, p) {
    if (!ctx.tls) return { ops: 0, duration_s: 0, skipped: 'openssl unavailable: no certificate for the receiver' };
    const mc = ctx.mailcue;
    const inboxes = await mc.createInboxes(ctx.key, 'h', p.inboxes);
    const gen = await Generator.start('webhook-receiver');
    try {
      const { port } = await gen.call<{ port: number }>('webhookListen', { certFile: ctx.tls.certFile, keyFile: ctx.tls.keyFile, apiKey: ctx.key }, 10_000);
      const url = (k: number) => `https://127.0.0.1:${port}/hook/${k}`;
      const first = await jsonRequest('POST', `${mc.base}/v1/webhooks`, { token: ctx.key, body: { url: url(0), inbox: inboxes[0] } });
      if (first.status === 404) return { ops: 0, duration_s: 0, skipped: 'webhooks API not available' };
      if (first.status !== 201 && first.status !== 200) throw new Error(`POST /v1/webhooks → ${first.status} ${JSON.stringify(first.body).slice(0, 300)}`);
      const ids: string[] = [first.body.id ?? first.body.data?.id];
      await mapLimit(inboxes.length * p.webhooksPerInbox - 1, 16, async (n) => {
        const i = n + 1;
        const r = await jsonRequest('POST', `${mc.base}/v1/webhooks`, { token: ctx.key, body: { url: url(i % p.webhooksPerInbox), inbox: inboxes[Math.floor(i / p.webhooksPerInbox)] } });
        if (r.status !== 201 && r.status !== 200) throw new Error(`POST /v1/webhooks → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
        ids.push(r.body.id ?? r.body.data?.id);
      });
      const warmMs = 20_000;
      const limitMs = (this.timeLimitS(ctx.quick) - 15) * 1000 - warmMs;
      // Each run waits for all its deliveries, so none of the warm-up's arrives in the counted one.
      const warm = await gen.call<WebhookRunResult>('webhookRun', { smtpPort: mc.smtpPort, inboxes, total: p.warmupMails, fanOut: p.webhooksPerInbox, connections: p.connections, timeLimitMs: warmMs - 5_000 }, warmMs);
      if (warm.delivered < warm.accepted * p.webhooksPerInbox) throw new Error(`warm-up: ${warm.delivered} of ${warm.accepted * p.webhooksPerInbox} deliveries arrived`);
      const c0 = await gen.cpu();
      const m = await measure(() => mc.pids, () => gen.call<WebhookRunResult>('webhookRun', { smtpPort: mc.smtpPort, inboxes, total: p.mails, fanOut: p.webhooksPerInbox, connections: p.connections, timeLimitMs: limitMs }, limitMs + 10_000));
      const r = m.value;
      const clientCpu = gen.cpuS - c0;
      // Mailcue's own record of the attempts (GET /v1/webhooks/{id}/deliveries) of a sample of webhooks.
      const failed: Record<string, number> = {};
      let attempts = 0;
      await mapLimit(Math.min(ids.length, 50), 8, async (k) => {
        const d = await jsonRequest('GET', `${mc.base}/v1/webhooks/${ids[k]}/deliveries`, { token: ctx.key });
        for (const a of (d.body?.data ?? []) as Attempt[]) {
          attempts++;
          if (a.status !== 200) failed[`${a.status} ${a.error ?? ''}`.trim()] = (failed[`${a.status} ${a.error ?? ''}`.trim()] ?? 0) + 1;
        }
      });
      return {
        ops: r.delivered, duration_s: r.duration_s, ops_per_s: r.ops_per_s, ...r.latency, peak_rss_mb: m.peak_rss_mb,
        client_cpu_share: cpuShare(clientCpu, r.duration_s), generator: 'raw-socket SMTP sender + node:https receiver (one process)',
        webhooks: p.inboxes * p.webhooksPerInbox, mails: r.sent, expected_deliveries: r.accepted * p.webhooksPerInbox,
        sampled_attempts: attempts, sampled_failed_attempts: failed, accepted: r.accepted, duplicates: r.duplicates, bad_signature: r.bad_signature, unmatched: r.unmatched,
        receiver_tls_connections: r.receiver_connections, smtp_s: r.smtp_s, delivered_during_smtp: r.delivered_during_smtp, server_cpu_cores: cores(m.server_cpu_s, r.duration_s), foreign_cpu_cores: foreignCores(m, clientCpu), client_cpu_cores: cores(clientCpu, r.duration_s),
      };
    } finally {
      await gen.stop();
    }
  },
};
