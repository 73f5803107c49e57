// Attack (issue 33): guessing the admin token. Failed admin attempts are counted per client
// (IPv4 address, IPv6 /64) in UTC-minute windows: past 10 every admin call from that client answers
// 429 rate_limited with Retry-After, the right token too, until the window ends. A token shorter
// than 32 characters refuses to start with one clear line.
import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN, startService, type Service } from '../helpers/service.js';
import { awayFromMinuteEnd } from '../helpers/wait.js';

let svc: Service;
test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await svc?.stop();
});

const adminCall = (token: string) => fetch(`${svc.baseUrl}/admin/v1/accounts`, {
  method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ plan: 'free' }),
});

test.serial('admin - failed attempts are throttled per client: the 11th in a minute is 429 with Retry-After, the right token too', async (t) => {
  await awayFromMinuteEnd();
  t.is((await adminCall(ADMIN_TOKEN)).status, 201, 'the right token works before any failure');
  for (let i = 0; i < 10; i++) {
    const res = await adminCall(`wrong-${i}-${'x'.repeat(32)}`);
    t.is(res.status, 401);
    t.is(((await res.json()) as { error: string }).error, 'unauthorized');
  }
  const refused = await adminCall(`wrong-again-${'x'.repeat(32)}`);
  t.is(refused.status, 429);
  t.like(await refused.json(), { success: false, error: 'rate_limited' });
  const retryAfter = refused.headers.get('retry-after');
  t.regex(retryAfter ?? '', /^\d+$/);
  t.true(Number(retryAfter) >= 1 && Number(retryAfter) <= 60);
  const right = await adminCall(ADMIN_TOKEN);
  t.is(right.status, 429, 'while the client is throttled, guessing right tells it nothing');
  t.truthy(right.headers.get('retry-after'));
});

test('admin - a token shorter than 32 characters refuses to start, with one line naming it', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-admin-'));
  try {
    const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
    const child = spawn(process.execPath, [main, 'serve'], {
      env: { ...process.env, MAILCUE_DATA_DIR: dir, MAILCUE_HTTP_PORT: '0', MAILCUE_SMTP_PORT: '0', MAILCUE_OPS_PORT: '0', MAILCUE_ADMIN_TOKEN: 'change-me' },
    });
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += b));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    t.not(code, 0);
    const lines = stderr.trim().split('\n');
    t.is(lines.length, 1, stderr);
    t.regex(lines[0]!, /MAILCUE_ADMIN_TOKEN must be at least 32 characters/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
