// A line chart as SVG text, with no dependency: the bench draws its scale curves itself (issue 37).
// The x axis is logarithmic (sizes grow by orders of magnitude); the y axis is linear from 0.

export interface Series {
  name: string;
  points: [number, number][];
}

export interface Chart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  /** A caption under the title: which run the figures come from. */
  caption: string;
}

const W = 720;
const H = 400;
const M = { left: 70, right: 170, top: 56, bottom: 50 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function lineChart(c: Chart): string {
  const xs = c.series.flatMap((s) => s.points.map(([x]) => x)).filter((x) => x > 0);
  const ys = c.series.flatMap((s) => s.points.map(([, y]) => y)).filter(Number.isFinite);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const lx0 = Math.log10(x0);
  const lx1 = Math.max(Math.log10(x1), lx0 + 1);
  const yMax = niceMax(Math.max(0, ...ys) * 1.05);
  const px = (x: number) => M.left + ((Math.log10(x) - lx0) / (lx1 - lx0)) * (W - M.left - M.right);
  const py = (y: number) => H - M.bottom - (y / yMax) * (H - M.top - M.bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${M.left}" y="22" font-size="15" font-weight="bold">${esc(c.title)}</text>`,
    `<text x="${M.left}" y="40" fill="#555">${esc(c.caption)}</text>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const y = (yMax / 5) * i;
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 6}" y="${py(y) + 4}" text-anchor="end">${Number(y.toPrecision(3)).toLocaleString('en-US')}</text>`);
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    out.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#eee"/>`);
    out.push(`<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle">${x.toLocaleString('en-US')}</text>`);
  }
  out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`);
  out.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#333"/>`);
  out.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 12}" text-anchor="middle">${esc(c.xLabel)} (log scale)</text>`);
  out.push(`<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(c.yLabel)}</text>`);
  c.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const pts = s.points.filter(([x, y]) => x > 0 && Number.isFinite(y));
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`);
    for (const [x, y] of pts) out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${color}"/>`);
    const ly = M.top + 10 + i * 18;
    out.push(`<line x1="${W - M.right + 12}" x2="${W - M.right + 32}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${W - M.right + 38}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
