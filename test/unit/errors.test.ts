import test from 'ava';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERRORS, MailcueError, asMailcueError } from '../../src/errors/registry.js';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every error code the sources raise or test for: fail('x', …), new MailcueError('x', …), smtpError('x', …), code === 'x'. */
function codesInSources(): Map<string, string> {
  const found = new Map<string, string>();
  const raise = /\b(?:fail|MailcueError|smtpError)\(\s*'([a-z_]+)'|(?<!typeof\s[\w.]*)\.code\s*===\s*'([a-z_]+)'/g;
  for (const file of sources(SRC)) {
    if (file.endsWith(join('errors', 'registry.ts'))) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(raise)) found.set(m[1] ?? m[2]!, file);
  }
  return found;
}

test('errors - every code maps to an HTTP status and a JSON-RPC answer', (t) => {
  for (const [code, spec] of Object.entries(ERRORS)) {
    t.true(spec.http >= 400 && spec.http < 600, code);
    t.true(spec.jsonrpc === null || Number.isInteger(spec.jsonrpc), code);
    if ('smtp' in spec) t.regex(`${spec.smtp[0]} ${spec.smtp[1]}`, /^([45])\d\d \1\.\d{1,3}\.\d{1,3}$/, code);
  }
});

test('errors - every code the sources raise is in the registry, and every registered code is raised', (t) => {
  const raised = codesInSources();
  t.true(raised.size > 20, 'the scan finds the codes the sources raise');
  const unmapped = [...raised].filter(([code]) => !(code in ERRORS)).map(([code, file]) => `${code} (${file})`);
  t.deepEqual(unmapped, [], 'raised but not in the registry');
  const unused = Object.keys(ERRORS).filter((code) => !raised.has(code));
  t.deepEqual(unused, [], 'registered but never raised: remove them');
});

test('errors - SEED.md JSON-RPC codes are the registered ones', (t) => {
  t.is(ERRORS.plan_required.jsonrpc, -32001);
  t.is(ERRORS.plan_required.http, 403);
  t.is(ERRORS.unauthorized.jsonrpc, -32002);
  t.is(ERRORS.unauthorized.http, 401);
  t.is(ERRORS.invalid_parameter.jsonrpc, -32602);
  t.is(ERRORS.rate_limited.jsonrpc, -32003);
  t.is(ERRORS.session_limit.jsonrpc, -32004);
  t.is(ERRORS.credits_exhausted.jsonrpc, -32005);
});

test('errors - unknown throwables become internal without leaking their message', (t) => {
  const e = asMailcueError(new Error('secret detail'));
  t.is(e.code, 'internal');
  t.false(e.message.includes('secret'));
  const known = new MailcueError('not_found', 'x');
  t.is(asMailcueError(known), known);
});

test('errors - OAuth routes take every error status from the registry, none written by hand', (t) => {
  const files = sources(join(SRC, 'front/oauth'));
  t.true(files.length >= 5, 'the scanner sees the OAuth routes');
  // A literal 4xx/5xx given to send/sendJson/writeStatus: success and redirect statuses may be literal.
  const byHand = /\b(?:send|sendJson|writeStatus)\(\s*['"]?[45]\d\d\b/g;
  const found = files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(byHand)].map((m) => `${f.slice(SRC.length + 1)}: ${m[0]}`));
  t.deepEqual(found, []);
});
