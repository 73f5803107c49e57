// The issue's targets, evaluated on a run's results, and the plain-text tables the runner prints.
import type { ScenarioResult } from './scenario.js';

export interface Target {
  target: string;
  measured: string;
  value: number | null;
  met: boolean | null;
  /** Why no verdict is given although the figures exist (other processes' load during a scenario). */
  refused?: string;
}

/** Other processes may use at most this many cores during a scenario for its figures to bear a verdict (issue 37). */
export const FOREIGN_CORES_MAX = 0.2;

/** The scenarios whose figures were measured while other processes used more than FOREIGN_CORES_MAX cores. */
export function loaded(results: Iterable<ScenarioResult>): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of results) {
    const foreign = num(r.foreign_cpu_cores);
    if (foreign !== null && foreign > FOREIGN_CORES_MAX) out.set(r.name, foreign);
  }
  return out;
}

/**
 * Withholds the verdict of every target that rests on a scenario measured under foreign load: its
 * figures are shown, `met` is null and `refused` says which scenario and how many cores others used.
 */
export function refuseLoaded(targets: Target[], inputs: Map<string, string[]>, results: Map<string, ScenarioResult>): Target[] {
  const busy = loaded(results.values());
  return targets.map((t) => {
    const noisy = (inputs.get(t.target) ?? []).filter((name) => busy.has(name));
    if (noisy.length === 0 || t.met === null) return t;
    const refused = `no verdict: other processes used ${noisy.map((n) => `${busy.get(n)} cores during ${n}`).join(', ')} (> ${FOREIGN_CORES_MAX})`;
    return { ...t, met: null, refused };
  });
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Exact: a target is judged on it, and it is rounded only where it is shown. */
export function ratio(a: number | null, b: number | null): number | null {
  return a !== null && b !== null && b > 0 ? a / b : null;
}

/** A ratio as the target table shows it: two decimals, so 1.9966 reads 1.99×, never a met-looking 2×. */
function shown(v: number): string {
  return (Math.floor(v * 100) / 100).toString();
}

/** A scale curve's figure at one size: `curve[size][field]`, null when missing. */
function at(r: ScenarioResult | undefined, size: string, field: string): number | null {
  const point = (r?.curve as Record<string, Record<string, unknown>> | undefined)?.[size];
  return num(point?.[field]);
}

/** The issue's targets (issue 37): each a ratio against a figure of the same run, most of them a floor of this machine. */
export function evaluateTargets(results: Map<string, ScenarioResult>): Target[] {
  const get = (name: string) => results.get(name);
  const ok = (r: ScenarioResult | undefined) => (r && !r.skipped && !r.error ? r : undefined);
  const ingest = ok(get('smtp-ingest'));
  const rest = ok(get('rest-get-latest'));
  const mcp = ok(get('mcp-get-latest'));
  const wake = ok(get('wake-latency'));
  const parkedWaiters = ok(get('parked-waiters'));
  const hook = ok(get('webhook-delivery'));
  const smtpPath = ok(get('floor-smtp-shard'));
  const readPath = ok(get('floor-uws-shard'));
  const out: Target[] = [];
  const inputs = new Map<string, string[]>();
  const add = (target: string, from: string[], value: number | null, met: (v: number) => boolean, measured: (v: number) => string) => {
    inputs.set(target, from);
    out.push({ target, value, met: value === null ? null : met(value), measured: value === null ? 'n/a' : measured(value) });
  };

  add('rest-get-latest ≥ 0.6× floor-uws-shard', ['rest-get-latest', 'floor-uws-shard'], ratio(num(rest?.ops_per_s), num(readPath?.ops_per_s)), (v) => v >= 0.6,
    (v) => `${shown(v)}× (${rest!.ops_per_s} vs ${readPath!.ops_per_s} req/s)`);
  add('mcp-get-latest ≥ 0.85× rest-get-latest', ['mcp-get-latest', 'rest-get-latest'], ratio(num(mcp?.ops_per_s), num(rest?.ops_per_s)), (v) => v >= 0.85,
    (v) => `${shown(v)}× (${mcp!.ops_per_s} vs ${rest!.ops_per_s} req/s)`);
  add('smtp-ingest ≥ 0.8× floor-smtp-shard', ['smtp-ingest', 'floor-smtp-shard'], ratio(num(ingest?.ops_per_s), num(smtpPath?.ops_per_s)), (v) => v >= 0.8,
    (v) => `${shown(v)}× (${ingest!.ops_per_s} vs ${smtpPath!.ops_per_s} mails/s)`);
  // Judged only with 10,000 parked: a quick run parks fewer.
  const floorWake = num((smtpPath?.wake_pattern as { p99_ms?: number } | undefined)?.p99_ms);
  const enoughParked = (num(wake?.parked) ?? 0) >= 10_000;
  const wakeRatio = ratio(num(wake?.p99_ms), floorWake);
  add('wake-latency p99 (10,000 parked) ≤ 1.5× floor-smtp-shard end-of-DATA→250 p99', ['wake-latency', 'floor-smtp-shard'], enoughParked ? wakeRatio : null, (v) => v <= 1.5,
    (v) => `${shown(v)}× (p99 ${wake!.p99_ms} vs ${floorWake} ms)`);
  if (!enoughParked && wakeRatio !== null) out[out.length - 1]!.measured = `${shown(wakeRatio)}× (p99 ${wake!.p99_ms} vs ${floorWake} ms; ${wake!.parked} parked: too few to judge)`;
  const cluster = ok(get('cluster-ingest'));
  add('cluster-ingest (3 copies, min in-sync 2) ≥ 0.4× embedded smtp-ingest', ['cluster-ingest', 'smtp-ingest'], ratio(num(cluster?.ops_per_s), num(ingest?.ops_per_s)), (v) => v >= 0.4,
    (v) => `${shown(v)}× (${cluster!.ops_per_s} vs ${ingest!.ops_per_s} mails/s)`);
  // DESIGN §8: a killed primary's slots resume within the lease TTL (default 5 s) plus 2 s.
  const fail = ok(get('failover'));
  add('failover: kill -9 of a primary → first 250 on its slots, max over the kills ≤ lease TTL + 2 s (7 s)', ['failover'], num(fail?.max_ms), (v) => v <= 7000,
    (v) => `max ${Math.round(v)} ms, p50 ${Math.round(num(fail!.p50_ms) ?? 0)} ms over ${fail!.kills} kills`);

  // Scale curves: the cost at the largest size against the smallest, in the same run.
  const inbox = ok(get('inbox-size'));
  const sizes = Object.keys((inbox?.curve as object) ?? {}).map(Number).sort((x, y) => x - y);
  const [small, large] = sizes.length ? [String(sizes[0]), String(sizes[sizes.length - 1])] : ['100', '100000'];
  for (const op of ['list', 'q', 'unread_only', 'since', 'attachment']) {
    const field = `${op}_cpu_us`;
    add(`inbox-size ${op}: CPU/request at ${large} messages ≤ 1.5× at ${small}`, ['inbox-size'], ratio(at(inbox, large, field), at(inbox, small, field)), (v) => v <= 1.5,
      (v) => `${shown(v)}× (${at(inbox, large, field)} vs ${at(inbox, small, field)} µs)`);
  }
  const accounts = ok(get('accounts'));
  const acc = Object.keys((accounts?.curve as object) ?? {}).map(Number).sort((x, y) => x - y);
  const [few, many] = acc.length ? [String(acc[0]), String(acc[acc.length - 1])] : ['10', '10000'];
  add(`accounts: REST read rate at ${many} accounts ≥ 0.8× at ${few}`, ['accounts'], ratio(at(accounts, many, 'ops_per_s'), at(accounts, few, 'ops_per_s')), (v) => v >= 0.8,
    (v) => `${shown(v)}× (${at(accounts, many, 'ops_per_s')} vs ${at(accounts, few, 'ops_per_s')} req/s)`);
  const parked = ok(get('parked'));
  const lv = Object.keys((parked?.curve as object) ?? {}).map(Number).sort((x, y) => x - y);
  const [lo, hi] = lv.length ? [String(lv[0]), String(lv[lv.length - 1])] : ['10000', '100000'];
  for (const field of ['bytes_per_waiter', 'wake_p99_ms']) {
    add(`parked: ${field} at ${hi} ≤ 1.5× at ${lo}`, ['parked'], ratio(at(parked, hi, field), at(parked, lo, field)), (v) => v <= 1.5,
      (v) => `${shown(v)}× (${at(parked, hi, field)} vs ${at(parked, lo, field)})`);
  }
  const del = ok(get('delete-large-inbox'));
  add('delete-large-inbox: concurrent reader p99 ≤ 50 ms', ['delete-large-inbox'], num(del?.p99_ms), (v) => v <= 50,
    (v) => `p99 ${v} ms, max ${del!.max_ms} ms while ${del!.messages} messages were deleted in ${del!.reclaim_s} s`);

  // Issue 33: one tenant's hostile mail costs another's ordinary mail at most half again.
  const hostile = ok(get('hostile-ingest'));
  for (const [field, what] of [['accepted_p99_ratio', 'end of DATA → 250'], ['visible_p99_ratio', '250 → visible, parsed']] as const) {
    add(`hostile-ingest: normal mail ${what} p99 ≤ 1.5× without the hostile sender`, ['hostile-ingest'], num(hostile?.[field]), (v) => v <= 1.5,
      (v) => `${shown(v)}× (${hostile!.hostile_mails} hostile mails, ${hostile!.hostile_mib} MiB beside; ${hostile!.unparsed} normal ones unparsed)`);
  }

  // Kept from earlier issues.
  const restBytes = num(parkedWaiters?.bytes_per_waiter);
  const mcpBytes = num(parkedWaiters?.bytes_per_mcp_waiter);
  const bpw = restBytes === null ? null : Math.max(restBytes, mcpBytes ?? 0);
  const mostParked = parkedWaiters ? Math.max(...Object.keys((parkedWaiters.rss_mb_by_parked as object) ?? {}).map(Number)) : 0;
  add('≤ 4 KiB RSS per parked long-poll (all processes)', ['parked-waiters'], mostParked >= 10_000 ? bpw : null, (v) => v <= 4096,
    (v) => `REST ${restBytes} B/waiter (${mostParked} parked)${mcpBytes === null ? '' : `, MCP ${mcpBytes} B`}`);
  add('webhook-delivery ≥ 5,000/s', ['webhook-delivery'], num(hook?.ops_per_s), (v) => v >= 5000, (v) => `${v}/s`);
  return refuseLoaded(out, inputs, results);
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
  const tgt = table(['target', 'measured', 'met'], targets.map((t) => [t.target, t.refused ? `${t.measured}; ${t.refused}` : t.measured, t.refused ? 'refused' : t.met === null ? 'n/a' : t.met ? 'yes' : 'NO']), 99);
  const busy = [...loaded(results)].map(([name, cores]) => `${name} (${cores} cores)`);
  const refusal = busy.length === 0 ? '' : `\n\nNO VERDICT for targets that rest on scenarios during which other processes used more than ${FOREIGN_CORES_MAX} cores: ${busy.join(', ')}. Rerun on a quiet machine.`;
  return `${scen}${refusal}\n\nserver cores = CPU of the measured server's processes / duration; client CPU = load generator CPU / (cores × duration);\nother cores = the rest of the machine's CPU in the window (other jobs; rerun when it is above ~0.2)\n\n${tgt}`;
}
