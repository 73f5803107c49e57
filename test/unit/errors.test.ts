import test from 'ava';
import { ERRORS, MailcueError, asMailcueError } from '../../src/errors/registry.js';

test('errors - every code maps to an HTTP status and a JSON-RPC answer', (t) => {
  for (const [code, spec] of Object.entries(ERRORS)) {
    t.true(spec.http >= 400 && spec.http < 600, code);
    t.true(spec.jsonrpc === null || Number.isInteger(spec.jsonrpc), code);
  }
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
