// Lets @modelcontextprotocol/conformance (built for Node 22) run on Node 20: its only Node 22 API is
// fs.globSync, used by its `tier-check` command and never by `server`. This loader hook drops that one
// import from that one file and puts a function in its place that says so if it is ever called.
import { register } from 'node:module';
import * as fs from 'node:fs';

if (!('globSync' in fs)) register(import.meta.url);

export async function load(url, context, next) {
  const out = await next(url, context);
  if (!url.includes('/@modelcontextprotocol/conformance/dist/')) return out;
  const source = String(out.source ?? '');
  if (!source.includes('globSync as o,')) return out;
  const patched = source.replace(/^#!.*\n/, '').replace('globSync as o,', '');
  return { ...out, source: `${patched}\nfunction o(){throw new Error('globSync needs Node 22')}\n` };
}
