// peer-maildev: MailDev 3 (npm maildev; smtp-server + mailparser like Mailcue, fastify API, every
// mail kept as .eml in its mail directory) measured in the same run with the same generators and
// mails: SMTP ingest of the smtp-ingest and smtp-ingest-100k mails, then GET /api/email/:id (one
// message by id, the peer of rest-get-latest) with the HTTP generator and connection count.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runInChild } from '../lib/generator.js';
import { httpLoad } from '../lib/http-load.js';
import { freePort, jsonRequest } from '../lib/net-util.js';
import { start, stop, waitFor } from '../lib/proc.js';
import { cores, cpuShare, foreignCores, measure, type Scenario } from '../lib/scenario.js';
import type { SmtpLoadResult } from '../lib/smtp-client.js';
import { smtpIngest, smtpIngestLarge } from './smtp-ingest.js';
import { restGetLatest } from './get-latest.js';

interface Params {
  smtpConnections: number;
  smallMails: number;
  largeMails: number;
  smallWarmup: number;
  largeWarmup: number;
  readConnections: number;
  readIds: number;
  durationS: number;
  warmupS: number;
}

export const peerMaildev: Scenario<Params> = {
  name: 'peer-maildev',
  title: 'MailDev 3: SMTP ingest (same mails) and GET /api/email/:id (same HTTP generator)',
  full: {
    smtpConnections: smtpIngest.full.connections, smallMails: smtpIngest.full.mails, largeMails: smtpIngestLarge.full.mails,
    smallWarmup: smtpIngest.full.warmupMails, largeWarmup: smtpIngestLarge.full.warmupMails,
    readConnections: restGetLatest.full.connections, readIds: 1000, durationS: restGetLatest.full.durationS, warmupS: restGetLatest.full.warmupS,
  },
  quick: {
    smtpConnections: smtpIngest.quick.connections, smallMails: smtpIngest.quick.mails, largeMails: smtpIngestLarge.quick.mails,
    smallWarmup: smtpIngest.quick.warmupMails, largeWarmup: smtpIngestLarge.quick.warmupMails,
    readConnections: restGetLatest.quick.connections, readIds: 1000, durationS: restGetLatest.quick.durationS, warmupS: restGetLatest.quick.warmupS,
  },
  timeLimitS: (quick) => (quick ? 40 : 180),
  async run(ctx, p) {
    // maildev's package exports do not expose its bin, so find it on disk.
    const bin = path.resolve('node_modules/maildev/dist/bin/maildev.js');
    if (!existsSync(bin)) return { ops: 0, duration_s: 0, skipped: 'maildev is not installed (npm ci installs it as a devDependency)' };
    const smtpPort = await freePort();
    const webPort = await freePort();
    const dir = mkdtempSync(path.join(ctx.tmp, 'maildev-'));
    const maildev = start('maildev', process.execPath, [bin, '--smtp', String(smtpPort), '--web', String(webPort), '--ip', '127.0.0.1', '--web-ip', '127.0.0.1', '--mail-directory', dir, '--silent']);
    const base = `http://127.0.0.1:${webPort}`;
    const procs = () => (maildev.exited ? [] : [{ name: 'maildev', pid: maildev.pid }]);
    try {
      await waitFor('MailDev ready', async () => {
        if (maildev.exited) throw new Error(`maildev exited: ${maildev.output.join(' | ')}`);
        return (await fetch(`${base}/api/email`)).status === 200;
      }, 30_000, 100);
      const send = async (kind: 'small' | 'large', total: number, warmup: number) => {
        const load = { host: '127.0.0.1', port: smtpPort, connections: p.smtpConnections, kind, recipients: ctx.readInboxes, timeLimitMs: 60_000 };
        await runInChild<SmtpLoadResult>('smtp-sender', 'smtpLoad', { ...load, total: warmup, tag: `md-warm-${kind}` }, 90_000);
        const m = await measure(procs, () => runInChild<SmtpLoadResult>('smtp-sender', 'smtpLoad', { ...load, total, tag: `md-${kind}` }, 90_000));
        return { ...m.value.result, client_cpu_s: m.value.cpu_s, server_cpu_s: m.server_cpu_s, peak_rss_mb: m.peak_rss_mb, foreign_cpu_cores: foreignCores(m, m.value.cpu_s) };
      };
      // Warmed up as Mailcue is in smtp-ingest and smtp-ingest-100k.
      const small = await send('small', p.smallMails, p.smallWarmup);
      const large = await send('large', p.largeMails, p.largeWarmup);
      const t = performance.now();
      const list = await jsonRequest('GET', `${base}/api/email`, { timeoutMs: 60_000 });
      const listAllMs = Math.round((performance.now() - t) * 10) / 10;
      if (list.status !== 200 || !Array.isArray(list.body)) throw new Error(`GET /api/email → ${list.status}`);
      const ids = (list.body as Array<{ id: string }>).slice(0, p.readIds).map((e) => e.id);
      const one = await jsonRequest('GET', `${base}/api/email/${ids[0]}`);
      if (one.status !== 200 || one.body?.id !== ids[0]) throw new Error(`GET /api/email/:id → ${one.status}`);
      const load = { port: webPort, connections: p.readConnections, warmupS: 0, requests: ids.map((id) => ({ method: 'GET', path: `/api/email/${id}` })) };
      await httpLoad({ ...load, durationS: p.warmupS });
      const read = await measure(procs, () => httpLoad({ ...load, durationS: p.durationS }));
      const r = read.value;
      const peak: Record<string, number> = {};
      for (const x of [small.peak_rss_mb, large.peak_rss_mb, read.peak_rss_mb]) for (const [k, v] of Object.entries(x)) peak[k] = Math.max(peak[k] ?? 0, v);
      return {
        ops: small.accepted, duration_s: small.duration_s, ops_per_s: small.ops_per_s, ...small.latency, peak_rss_mb: peak,
        client_cpu_share: cpuShare(small.client_cpu_s, small.duration_s), server_cpu_cores: cores(small.server_cpu_s, small.duration_s), foreign_cpu_cores: small.foreign_cpu_cores,
        generator: 'raw-socket SMTP sender (node) + ' + r.generator,
        smtp_ops_per_s: small.ops_per_s, smtp_100k_ops_per_s: large.ops_per_s, read_ops_per_s: r.ops_per_s,
        smtp: { ops: small.accepted, ops_per_s: small.ops_per_s, ...small.latency, server_cpu_cores: cores(small.server_cpu_s, small.duration_s), foreign_cpu_cores: small.foreign_cpu_cores, refused: small.refused },
        smtp_100k: { ops: large.accepted, ops_per_s: large.ops_per_s, ...large.latency, client_cpu_share: cpuShare(large.client_cpu_s, large.duration_s), refused: large.refused },
        read: {
          ops: r.requests, duration_s: r.duration_s, ops_per_s: r.ops_per_s, ...r.latency, client_cpu_share: cpuShare(r.client_cpu_s, r.duration_s),
          server_cpu_cores: cores(read.server_cpu_s, r.duration_s), foreign_cpu_cores: foreignCores(read, r.client_cpu_s), non_2xx: r.non_2xx, socket_errors: r.socket_errors, ids: ids.length, connections: p.readConnections,
        },
        list_all_ms: listAllMs, messages_held: (list.body as unknown[]).length,
      };
    } finally {
      await stop(maildev);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
