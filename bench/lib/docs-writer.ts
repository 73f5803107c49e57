// Writes a run's scale curves and target ratios into docs/performance.md (between markers, so the
// prose around them stays the coordinator's) and draws each curve as an SVG beside it (issue 37).
// Every figure written names its run: commit, date, full or quick, and the other processes' load.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FOREIGN_CORES_MAX, type Target } from './report.js';
import type { ScenarioResult } from './scenario.js';
import { lineChart, type Series } from './svg-chart.js';

const START = '<!-- bench:results:start (written by `npm run bench`; do not edit by hand) -->';
const END = '<!-- bench:results:end -->';

export interface RunInfo {
  commit: string;
  dirty: boolean;
  date: string;
  quick: boolean;
  cpu: string;
  node: string;
}

type Curve = Record<string, Record<string, number | null>>;

/** Which fields of which scale scenario are drawn and tabled, with their labels. */
const CURVES: { scenario: string; x: string; y: string; fields: [string, string][]; title: string }[] = [
  {
    scenario: 'inbox-size', x: 'messages in the inbox', y: 'server CPU per request, µs', title: 'inbox-size: CPU per request as the inbox grows',
    fields: [['list_cpu_us', 'list'], ['q_cpu_us', 'q search'], ['unread_only_cpu_us', 'unread_only'], ['since_cpu_us', 'since wait'], ['attachment_cpu_us', 'attachment']],
  },
  { scenario: 'accounts', x: 'accounts (10 inboxes each)', y: 'REST reads per second', title: 'accounts: REST read rate as accounts grow', fields: [['ops_per_s', 'GET …/messages?limit=1']] },
  { scenario: 'parked', x: 'parked long-polls', y: 'bytes per waiter / wake p99 µs', title: 'parked: memory and wake latency as waiters grow', fields: [['bytes_per_waiter', 'bytes per waiter'], ['wake_p99_us', 'wake p99 (µs)']] },
];

function runLine(run: RunInfo, results: ScenarioResult[]): string {
  const foreign = Math.max(0, ...results.map((r) => (typeof r.foreign_cpu_cores === 'number' ? r.foreign_cpu_cores : 0)));
  return `Run: commit \`${run.commit.slice(0, 10)}${run.dirty ? '+dirty' : ''}\`, ${run.date}, ${run.quick ? '**quick** sizes' : 'full sizes'}, ${run.cpu}, Node ${run.node}; ` +
    `the most other processes used during a scenario: ${foreign} cores${foreign > FOREIGN_CORES_MAX ? ` (**above ${FOREIGN_CORES_MAX}: these figures bear no verdict**)` : ''}.`;
}

function curveTable(curve: Curve, fields: [string, string][], x: string): string {
  const sizes = Object.keys(curve).sort((a, b) => Number(a) - Number(b));
  const head = `| ${x} | ${fields.map(([, label]) => label).join(' | ')} |`;
  const rule = `|${'---|'.repeat(fields.length + 1)}`;
  const rows = sizes.map((s) => `| ${Number(s).toLocaleString('en-US')} | ${fields.map(([f]) => curve[s]![f] ?? '-').join(' | ')} |`);
  return [head, rule, ...rows].join('\n');
}

/** The markdown between the markers, writing the SVGs into `docsDir` as it goes. */
export function resultsSection(run: RunInfo, results: ScenarioResult[], targets: Target[], docsDir: string): string {
  const parts: string[] = [`### Results of the last recorded run`, '', runLine(run, results), ''];
  for (const c of CURVES) {
    const r = results.find((x) => x.name === c.scenario && !x.error && !x.skipped);
    const curve = r?.curve as Curve | undefined;
    if (!r || !curve) continue;
    const series: Series[] = c.fields.map(([f, label]) => ({ name: label, points: Object.entries(curve).map(([s, pt]) => [Number(s), Number(pt[f])] as [number, number]) }));
    const file = `perf-${c.scenario}.svg`;
    writeFileSync(path.join(docsDir, file), lineChart({ title: c.title, xLabel: c.x, yLabel: c.y, series, caption: `commit ${run.commit.slice(0, 10)}, ${run.date.slice(0, 10)}${run.quick ? ', quick sizes' : ''}` }));
    parts.push(`#### ${c.scenario}`, '', curveTable(curve, c.fields, c.x), '', `![${c.title}](${file})`, '');
  }
  const del = results.find((x) => x.name === 'delete-large-inbox' && !x.error);
  if (del) {
    parts.push('#### delete-large-inbox', '', `${del.messages} messages deleted; the DELETE answered in ${del.delete_answer_ms} ms and the messages were gone after ${del.reclaim_s} s. ` +
      `Reader of another inbox on the same shard meanwhile: p50 ${del.p50_ms} ms, p99 ${del.p99_ms} ms, max ${del.max_ms} ms (${del.ops} reads; before the DELETE p99 ${(del.baseline as { p99_ms: number }).p99_ms} ms).`, '');
  }
  parts.push('#### Targets (ratios against figures of the same run)', '', '| target | measured | met |', '|---|---|---|');
  for (const t of targets) parts.push(`| ${t.target} | ${t.refused ? `${t.measured}; ${t.refused}` : t.measured} | ${t.refused ? 'no verdict' : t.met === null ? 'n/a' : t.met ? 'yes' : 'no'} |`);
  return parts.join('\n');
}

/** Replaces the results section of docs/performance.md (creating the file or the markers when missing). */
export function writePerformanceDocs(run: RunInfo, results: ScenarioResult[], targets: Target[], docsDir = path.resolve('docs')): string {
  mkdirSync(docsDir, { recursive: true });
  const file = path.join(docsDir, 'performance.md');
  const section = `${START}\n${resultsSection(run, results, targets, docsDir)}\n${END}`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Performance\n';
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  const next = a >= 0 && b > a ? `${text.slice(0, a)}${section}${text.slice(b + END.length)}` : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
  return file;
}
