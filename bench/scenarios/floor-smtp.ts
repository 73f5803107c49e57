// floor-smtp: smtp-server with mailparser parsing every mail and storing nothing, driven by the
// same SMTP generator, connections and mails as smtp-ingest: the most this machine ingests over
// loopback SMTP with our SMTP and MIME libraries (issue 18's ceiling for smtp-ingest).
import { startFloorServer } from '../lib/floor-server.js';
import { Generator } from '../lib/generator.js';
import { freePort } from '../lib/net-util.js';
import { stop } from '../lib/proc.js';
import { cores, cpuShare, foreignCores, measure, type Scenario } from '../lib/scenario.js';
import type { SmtpLoadResult } from '../lib/smtp-client.js';

interface Params {
  connections: number;
  mails: number;
  /** Not counted, as in smtp-ingest. */
  warmupMails: number;
}

export const floorSmtp: Scenario<Params> = {
  name: 'floor-smtp',
  title: 'smtp-server + mailparser, nothing stored: mails/s (machine floor for SMTP ingest)',
  full: { connections: 10, mails: 5000, warmupMails: 2000 },
  quick: { connections: 10, mails: 1000, warmupMails: 300 },
  timeLimitS: (quick) => (quick ? 30 : 120),
  async run(ctx, p) {
    const port = await freePort();
    const server = await startFloorServer('floor-smtp', 'smtp', String(port));
    const gen = await Generator.start('smtp-sender');
    try {
      const recipients = Array.from({ length: 100 }, (_, i) => `r${i}@floor.test`);
      await gen.call<SmtpLoadResult>('smtpLoad', { host: '127.0.0.1', port, connections: p.connections, total: p.warmupMails, kind: 'small', recipients, tag: 'floorwarm', timeLimitMs: 60_000 }, 90_000);
      const c0 = await gen.cpu();
      const m = await measure(() => [{ name: 'floor-smtp', pid: server.pid }], () =>
        gen.call<SmtpLoadResult>('smtpLoad', { host: '127.0.0.1', port, connections: p.connections, total: p.mails, kind: 'small', recipients, tag: 'floor', timeLimitMs: (this.timeLimitS(ctx.quick) - 10) * 1000 }, this.timeLimitS(ctx.quick) * 1000));
      const r = m.value;
      const clientCpu = gen.cpuS - c0;
      return {
        ops: r.accepted, duration_s: r.duration_s, ops_per_s: r.ops_per_s, ...r.latency, peak_rss_mb: m.peak_rss_mb,
        client_cpu_share: cpuShare(clientCpu, r.duration_s), generator: 'raw-socket SMTP sender (node, PIPELINING)', connections: p.connections,
        server_cpu_cores: cores(m.server_cpu_s, r.duration_s), foreign_cpu_cores: foreignCores(m, clientCpu), client_cpu_cores: cores(clientCpu, r.duration_s),
        server_cpu_ms_per_mail: r.accepted ? Math.round((m.server_cpu_s / r.accepted) * 1e6) / 1e3 : null,
      };
    } finally {
      await gen.stop();
      await stop(server);
    }
  },
};
