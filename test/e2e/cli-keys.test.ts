// End to end: `mailcue keys` as a shell or CI job runs it, and a scoped key refused outside its
// scope by the command-line client (exit 4, the server's scope_denied and a hint on stderr).
import test from 'ava';
import { runCli } from '../helpers/cli.js';
import { startService, type Service } from '../helpers/service.js';

let svc: Service;

test.before(async () => {
  svc = await startService();
});
test.after.always(async () => {
  await svc?.stop();
});

test('cli keys - create prints the secret alone when piped; list, rotate and delete; a scoped key is refused outside its scope', async (t) => {
  const { api_key } = await svc.createAccount('growth');
  const owner = { MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: api_key };
  const mine = await runCli(['inbox', 'create'], { env: owner });
  const other = await runCli(['inbox', 'create'], { env: owner });
  t.is(mine.code, 0);
  const [inbox, otherInbox] = [mine.stdout.trim(), other.stdout.trim()];

  const created = await runCli(['keys', 'create', '--inbox', inbox, '--read-only', '--name', 'ci'], { env: owner });
  t.is(created.code, 0, created.stderr);
  const secret = created.stdout.trim();
  t.regex(secret, /^mck_[0-9a-f]{16}_[0-9a-f]{48}$/, 'only the secret, for KEY=$(mailcue keys create …)');

  const listed = await runCli(['keys', 'list', '--json'], { env: owner });
  t.is(listed.code, 0);
  const keys = JSON.parse(listed.stdout) as { id: string; inboxes: string[]; read_only: boolean }[];
  t.is(keys.length, 1);
  t.like(keys[0], { inboxes: [inbox], read_only: true });
  t.false(listed.stdout.includes(secret));

  const scoped = { MAILCUE_URL: svc.baseUrl, MAILCUE_API_KEY: secret };
  t.is((await runCli(['messages', 'list', inbox], { env: scoped })).code, 0);
  const outside = await runCli(['messages', 'list', otherInbox], { env: scoped });
  t.is(outside.code, 4);
  t.regex(outside.stderr, /scope_denied/);
  t.regex(outside.stderr, /hint: this key is scoped/);
  const write = await runCli(['inbox', 'delete', inbox], { env: scoped });
  t.is(write.code, 4, 'read-only');
  t.is((await runCli(['keys', 'list'], { env: scoped })).code, 4, 'a scoped key cannot manage keys');

  const rotated = await runCli(['keys', 'rotate', keys[0]!.id], { env: owner });
  t.is(rotated.code, 0);
  t.not(rotated.stdout.trim(), secret);
  t.is((await runCli(['messages', 'list', inbox], { env: scoped })).code, 4, 'the old secret is refused (401)');
  const deleted = await runCli(['keys', 'delete', keys[0]!.id], { env: owner });
  t.is(deleted.code, 0);
  t.is((await runCli(['keys', 'delete', keys[0]!.id], { env: owner })).code, 3);
});
