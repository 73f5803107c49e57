// Unit: the JSON nesting bound of DESIGN §7, on the text before it is parsed.
import test from 'ava';
import { nestsDeeperThan } from '../../src/front/http/json-depth.js';

const nested = (depth: number) => `${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}`;

test('json depth - 64 levels pass, 65 do not, whatever mix of objects and arrays', (t) => {
  t.false(nestsDeeperThan(nested(64)));
  t.true(nestsDeeperThan(`[${nested(64)}]`));
  t.true(nestsDeeperThan('['.repeat(200_000)));
});

test('json depth - brackets inside strings, and escaped quotes, do not count', (t) => {
  t.false(nestsDeeperThan(JSON.stringify({ s: '{['.repeat(500) })));
  t.false(nestsDeeperThan(JSON.stringify({ s: `"\\${'{'.repeat(100)}` })));
  t.true(nestsDeeperThan(`{"s":"\\"",${'"a":['.repeat(70)}${']'.repeat(70)}}`));
});

test('json depth - many shallow brackets are not depth', (t) => {
  t.false(nestsDeeperThan(JSON.stringify(Array.from({ length: 1000 }, () => ({ a: [1] })))));
});
