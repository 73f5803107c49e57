// The issue's targets, evaluated on a run's results, and the plain-text tables the runner prints.
import type { ScenarioResult } from './scenario.js';

export interface Target {
  target: string;
  measured: string;
  value: number | null;
  met: boolean | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Exact: a target is judged on it, and it is rounded only where it is shown. */
function ratio(a: number | null, b: number | null): number | null {
  return a !== null && b !== null && b > 0 ? a / b : null;
}

/** A ratio as the target table shows it: two decimals, so 1.9966 reads 1.99×, never a met-looking 2×. */
function shown(v: number): string {
  return (Math.floor(v * 100) / 100).toString();
}

/** floor-smtp-shard sending as wake-latency does: end of DATA → 250 with nothing parked or woken. */
function wakeFloor(path: ScenarioResult | undefined): string {
  const w = path?.wake_pattern as { p50_ms?: number; p99_ms?: number } | undefined;
  return w?.p99_ms === undefined ? '' : `; floor-smtp-shard's 250 alone p99 ${w.p99_ms} ms, p50 ${w.p50_ms} ms`;
}

export function evaluateTargets(results: Map<string, ScenarioResult>): Target[] {
  const get = (name: string) => results.get(name);
  const ok = (r: ScenarioResult | undefined) => (r && !r.skipped && !r.error ? r : undefined);
  const ingest = ok(get('smtp-ingest'));
  const rest = ok(get('rest-get-latest'));
  const mcp = ok(get('mcp-get-latest'));
  const grpc = ok(get('floor-grpc'));
  const wake = ok(get('wake-latency'));
  const parked = ok(get('parked-waiters'));
  const hook = ok(get('webhook-delivery'));
  const peer = ok(get('peer-maildev'));
  const out: Target[] = [];
  const add = (target: string, value: number | null, met: (v: number) => boolean, measured: (v: number) => string) =>
    out.push({ target, value, met: value === null ? null : met(value), measured: value === null ? 'n/a' : measured(value) });

  const smtpFloor = ok(get('floor-smtp'));
  const uws = ok(get('floor-uws'));
  // The floors of the architecture itself (the path DESIGN §1 fixes, with none of Mailcue's work on
  // it), beside each target: how far that path alone gets against the same yardstick.
  const smtpPath = ok(get('floor-smtp-shard'));
  const readPath = ok(get('floor-uws-shard'));
  const pathShare = (path: ScenarioResult | undefined, yardstick: unknown) => {
    const share = ratio(num(path?.ops_per_s), num(yardstick));
    return share === null ? '' : `; ${path!.name} alone ${shown(share)}×`;
  };
  const smtpRatio = ratio(num(ingest?.ops_per_s), num(peer?.smtp_ops_per_s));
  add('smtp-ingest ≥ 2× MailDev SMTP ingest', smtpRatio, (v) => v >= 2, (v) => `${shown(v)}× (${ingest!.ops_per_s} vs ${peer!.smtp_ops_per_s} mails/s)${pathShare(smtpPath, peer!.smtp_ops_per_s)}`);
  const smtpFloorRatio = ratio(num(ingest?.ops_per_s), num(smtpFloor?.ops_per_s));
  add('smtp-ingest ≥ 0.75× floor-smtp', smtpFloorRatio, (v) => v >= 0.75, (v) => `${shown(v)}× (${ingest!.ops_per_s} vs ${smtpFloor!.ops_per_s} mails/s)${pathShare(smtpPath, smtpFloor!.ops_per_s)}`);
  const readRatio = ratio(num(rest?.ops_per_s), num(peer?.read_ops_per_s));
  add('rest-get-latest ≥ 1.5× MailDev GET /api/email/:id', readRatio, (v) => v >= 1.5, (v) => `${shown(v)}× (${rest!.ops_per_s} vs ${peer!.read_ops_per_s} req/s)${pathShare(readPath, peer!.read_ops_per_s)}`);
  const restFloorRatio = ratio(num(rest?.ops_per_s), num(uws?.ops_per_s));
  add('rest-get-latest ≥ 0.35× floor-uws', restFloorRatio, (v) => v >= 0.35, (v) => `${shown(v)}× (${rest!.ops_per_s} vs ${uws!.ops_per_s} req/s)${pathShare(readPath, uws!.ops_per_s)}`);
  const mcpRatio = ratio(num(mcp?.ops_per_s), num(grpc?.ops_per_s));
  add('mcp-get-latest ≥ 2× floor-grpc (unary)', mcpRatio, (v) => v >= 2, (v) => `${shown(v)}× (${mcp!.ops_per_s} vs ${grpc!.ops_per_s} calls/s)`);
  const mcpRestRatio = ratio(num(mcp?.ops_per_s), num(rest?.ops_per_s));
  add('mcp-get-latest ≥ 0.8× rest-get-latest', mcpRestRatio, (v) => v >= 0.8, (v) => `${shown(v)}× (${mcp!.ops_per_s} vs ${rest!.ops_per_s} req/s)`);
  const p99 = num(wake?.p99_ms);
  const enoughParked = (num(wake?.parked) ?? 0) >= 10_000;
  out.push({
    target: 'wake-latency p99 ≤ 5 ms with 10,000 parked', value: p99,
    met: p99 === null || !enoughParked ? null : p99 <= 5,
    measured: p99 === null ? 'n/a' : `p99 ${p99} ms, p50 ${wake!.p50_ms} ms (${wake!.parked} parked${enoughParked ? '' : ': too few to judge'})${wakeFloor(smtpPath)}`,
  });
  // Both kinds of long-poll count: the larger of a REST wait and an MCP watch_email call. Like
  // wake-latency, judged only at full size: a few thousand waits are a few MiB, within the heap's
  // own growth and shrinking (a quick run read 63 and then 105 B per REST wait, and -874 B per MCP).
  const restBytes = num(parked?.bytes_per_waiter);
  const mcpBytes = num(parked?.bytes_per_mcp_waiter);
  const bpw = restBytes === null ? null : Math.max(restBytes, mcpBytes ?? 0);
  const mostParked = parked ? Math.max(...Object.keys((parked.rss_mb_by_parked as object) ?? {}).map(Number)) : 0;
  const enoughWaiters = mostParked >= 10_000;
  out.push({
    target: '≤ 4 KiB RSS per parked long-poll (all processes)', value: bpw,
    met: bpw === null || !enoughWaiters ? null : bpw <= 4096,
    measured: bpw === null ? 'n/a'
      : `REST ${restBytes} B/waiter (${mostParked} parked)${mcpBytes === null ? '' : `, MCP ${mcpBytes} B (${(parked!.mcp_waiters as { parked: number }).parked} parked)`}${enoughWaiters ? '' : ': too few to judge'}`,
  });
  add('webhook-delivery ≥ 5,000/s', num(hook?.ops_per_s), (v) => v >= 5000, (v) => `${v}/s`);
  return out;
}

function pad(s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n);
}

function table(header: string[], rows: string[][], rightFrom = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => pad(c, widths[i]!, i >= rightFrom && i < header.length - 1)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const f = (v: unknown, digits = 1): string => {
  const n = num(v);
  if (n === null) return '-';
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(digits);
};

function notes(r: ScenarioResult): string {
  if (r.skipped) return `skipped: ${r.skipped}`;
  if (r.error) return `ERROR: ${r.error.split('\n')[0]!.slice(0, 120)}`;
  const n: string[] = [];
  switch (r.name) {
    case 'floor-uws':
    case 'floor-uws-shard': {
      const cores = num(r.server_cpu_cores);
      const rate = num(r.ops_per_s);
      if (cores !== null && rate) n.push(`server ${f((cores * 1e6) / rate)} µs CPU/req`);
      break;
    }
    case 'floor-smtp':
    case 'floor-smtp-shard': {
      n.push(`server ${f(r.server_cpu_ms_per_mail, 2)} ms CPU/mail`);
      const w = r.wake_pattern as { p50_ms: number; p99_ms: number } | undefined;
      if (w) n.push(`as wake-latency sends: p50 ${f(w.p50_ms, 2)} / p99 ${f(w.p99_ms, 2)} ms`);
      break;
    }
    case 'floor-grpc':
      n.push(`bidi stream ${f((r.bidi_stream as { ops_per_s: number }).ops_per_s)}/s`);
      break;
    case 'smtp-ingest':
    case 'smtp-ingest-100k':
      n.push(`readable ${r.readable}/${r.ops}`);
      if (r.otp_extracted !== undefined) n.push(`otp ok ${r.otp_extracted}`);
      if (r.sample_attachment_ok !== undefined) n.push(`attachment ok ${r.sample_attachment_ok}`);
      n.push(`server ${f(r.server_cpu_ms_per_mail, 2)} ms CPU/mail`);
      break;
    case 'rest-get-latest':
    case 'mcp-get-latest':
      n.push(`server ${r.server_cpu_us_per_op} µs CPU/req`);
      if (typeof r.leased_admissions_share === 'number') n.push(`${Math.round(r.leased_admissions_share * 100)} % leased`);
      if (r.non_2xx) n.push(`non-2xx ${r.non_2xx}`);
      break;
    case 'wake-latency':
      n.push(`${r.parked} parked; REST p99 ${f((r.rest as { p99_ms: number }).p99_ms, 2)} / MCP p99 ${f((r.mcp as { p99_ms: number }).p99_ms, 2)} ms`);
      if (r.missing) n.push(`missing ${r.missing}`);
      break;
    case 'parked-waiters':
      n.push(`${r.bytes_per_waiter} B/waiter (${Object.entries(r.bytes_per_waiter_by_role as object).map(([k, v]) => `${k} ${v}`).join(', ')}); RSS MiB ${Object.entries(r.rss_mb_by_parked as object).map(([k, v]) => `${k}:${v}`).join(' ')}${r.bytes_per_mcp_waiter === undefined ? '' : `; MCP ${r.bytes_per_mcp_waiter} B/waiter`}`);
      break;
    case 'webhook-delivery':
      n.push(`${r.ops}/${r.expected_deliveries} delivered, p99 ${f(r.p99_ms, 1)} ms after DATA; dup ${r.duplicates}, bad sig ${r.bad_signature}`);
      break;
    case 'peer-maildev':
      n.push(`smtp ${f(r.smtp_ops_per_s)}/s, 100k ${f(r.smtp_100k_ops_per_s)}/s, read by id ${f(r.read_ops_per_s)}/s (p99 ${f((r.read as { p99_ms: number }).p99_ms, 1)} ms)`);
      break;
  }
  return n.join('; ');
}

export function formatTables(results: ScenarioResult[], targets: Target[]): string {
  const rows = results.map((r) => [
    r.name, f(r.ops, 0), f(r.ops_per_s), f(r.p50_ms, 2), f(r.p90_ms, 2), f(r.p99_ms, 2), f(r.max_ms, 2),
    Object.entries(r.peak_rss_mb ?? {}).map(([k, v]) => `${k} ${f(v, 0)}`).join(', ') || '-',
    f(r.server_cpu_cores, 2),
    r.client_cpu_share === null || r.client_cpu_share === undefined ? '-' : `${Math.round(r.client_cpu_share * 100)}%`,
    f(r.foreign_cpu_cores, 2),
    notes(r),
  ]);
  const scen = table(['scenario', 'ops', 'ops/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'peak RSS MB', 'server cores', 'client CPU', 'other cores', 'notes'], rows);
  const tgt = table(['target', 'measured', 'met'], targets.map((t) => [t.target, t.measured, t.met === null ? 'n/a' : t.met ? 'yes' : 'NO']), 99);
  return `${scen}\n\nserver cores = CPU of the measured server's processes / duration; client CPU = load generator CPU / (cores × duration);\nother cores = the rest of the machine's CPU in the window (other jobs; rerun when it is above ~0.2)\n\n${tgt}`;
}
