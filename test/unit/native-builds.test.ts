// The native builds Mailcue relies on load (package.json `allowScripts` lets their install scripts
// run on npm 11; without a build they fall back silently or not at all).
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isNativeAccelerationEnabled } from 'msgpackr';
import { open } from 'lmdb';

test('native builds - msgpackr decodes with msgpackr-extract, not its JS fallback', (t) => {
  t.true(isNativeAccelerationEnabled);
});

test('native builds - lmdb opens an environment and writes through its native binding', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-native-'));
  const db = open({ path: dir });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  await db.put('k', { v: 1 });
  t.deepEqual(db.get('k'), { v: 1 });
  await db.close();
});

test('native builds - uWebSockets.js loads its native binary (src/front/http/uws.ts asserts it at start-up)', async (t) => {
  const { uWS } = await import('../../src/front/http/uws.js');
  t.is(typeof uWS.App, 'function');
});
