import test from 'ava';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// Every link of the user's manual resolves: README.md, docs/, deploy/ and bench/ point at files that
// exist, and an `#anchor` names a heading of its target as GitHub renders it.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const MANUAL = ['README.md', 'deploy/README.md', 'bench/README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Links outside fenced code blocks. */
function linksOf(markdown: string): string[] {
  const prose = markdown.split(/^```.*$/m).filter((_, i) => i % 2 === 0).join('\n');
  return [...prose.matchAll(LINK)].map((m) => m[1]!);
}

test('docs - every relative link of the manual resolves, anchors included', (t) => {
  const broken: string[] = [];
  for (const doc of MANUAL) {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const link of linksOf(text)) {
      if (/^(https?:|mailto:)/.test(link) || link === '…') continue;
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(ROOT, doc) : join(ROOT, dirname(doc), path);
      if (!existsSync(target)) {
        broken.push(`${doc}: ${link} (no ${relative(ROOT, target)})`);
        continue;
      }
      if (anchor === undefined || statSync(target).isDirectory()) continue;
      if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${doc}: ${link} (no heading #${anchor})`);
    }
  }
  t.deepEqual(broken, []);
});

test('docs - the README is a manual of at most 600 lines that links every reference page', (t) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  t.true(readme.split('\n').length <= 600, `README.md has ${readme.split('\n').length} lines`);
  const pages = ['rest', 'mcp', 'cli', 'configuration', 'security', 'cluster', 'operations', 'extraction', 'architecture', 'performance'];
  for (const page of pages) t.true(linksOf(readme).includes(`docs/${page}.md`), `README.md links docs/${page}.md`);
});

test('docs - the anchor rule matches GitHub on punctuation and repeats', (t) => {
  t.deepEqual([...anchorsOf('# Extraction: codes and links\n## A CI job\n## A CI job\n```\n# not a heading\n```')], [
    'extraction-codes-and-links',
    'a-ci-job',
    'a-ci-job-1',
  ]);
});
