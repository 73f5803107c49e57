// What the SMTP throughput scenarios (smtp-ingest, smtp-ingest-100k, floor-smtp) share: warm-up
// mails first, not counted, then the counted ones measured against the server's processes, and
// the result fields that come from that one measurement.
import type { Generator } from './generator.js';
import { cores, cpuShare, foreignCores, measure } from './scenario.js';
import type { SmtpLoadParams, SmtpLoadResult } from './smtp-client.js';

export interface CountedSmtpLoad {
  /** Everything but the counts, the tag and the time cap. */
  load: Omit<SmtpLoadParams, 'total' | 'tag' | 'timeLimitMs'>;
  mails: number;
  warmupMails: number;
  tag: string;
  timeLimitS: number;
}

export async function countedSmtpLoad(gen: Generator, procs: () => ReadonlyArray<{ name: string; pid: number }>, c: CountedSmtpLoad) {
  await gen.call<SmtpLoadResult>('smtpLoad', { ...c.load, total: c.warmupMails, tag: `warm${c.tag}`, timeLimitMs: 60_000 }, 90_000);
  const c0 = await gen.cpu();
  const m = await measure(procs, () =>
    gen.call<SmtpLoadResult>('smtpLoad', { ...c.load, total: c.mails, tag: c.tag, timeLimitMs: (c.timeLimitS - 10) * 1000 }, c.timeLimitS * 1000));
  const r = m.value;
  const clientCpu = gen.cpuS - c0;
  return {
    sent: r.sent,
    fields: {
      ops: r.accepted, duration_s: r.duration_s, ops_per_s: r.ops_per_s, ...r.latency, peak_rss_mb: m.peak_rss_mb,
      client_cpu_share: cpuShare(clientCpu, r.duration_s), generator: 'raw-socket SMTP sender (node, PIPELINING)', connections: c.load.connections,
      bytes_per_mail: r.bytes_per_mail, refused: r.refused, timed_out: r.timed_out || undefined,
      server_cpu_cores: cores(m.server_cpu_s, r.duration_s), foreign_cpu_cores: foreignCores(m, clientCpu), client_cpu_cores: cores(clientCpu, r.duration_s),
      server_cpu_ms_per_mail: r.accepted ? Math.round((m.server_cpu_s / r.accepted) * 1e6) / 1e3 : null,
    },
  };
}
