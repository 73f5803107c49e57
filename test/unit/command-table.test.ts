// The command table (src/contract/command-table.ts): every command of the union has a row, every
// row a handler on a shard, and the routing, resend, parking and feed rules are read from it.
import test from 'ava';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ShardActors } from '../../src/actors/shard-actors.js';
import { loadConfig } from '../../src/config/config.js';
import { COMMAND_TABLE, COMMAND_TYPES, PARKING, RESENDABLE, SHARD_ONLY, feedKind, routeKey } from '../../src/contract/command-table.js';
import type { Command } from '../../src/contract/commands.js';

const COMMANDS_TS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/contract/commands.ts');

/** The `type: '…'` literals of the command union, read from its source. */
function declaredTypes(): string[] {
  const source = readFileSync(COMMANDS_TS, 'utf8');
  return [...new Set([...source.matchAll(/\btype:\s*'([a-z_]+\.[a-z_]+)'/g)].map((m) => m[1]!))].sort();
}

test('command table - every command of the union has a row, and every row a command', (t) => {
  const declared = declaredTypes();
  t.true(declared.length > 40, 'the scan reads the union');
  t.deepEqual([...COMMAND_TYPES].sort(), declared);
});

test('command table - a shard has a handler for every row and for nothing else', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mailcue-table-'));
  const actors = new ShardActors(0, loadConfig({}), dir, 'ab'.repeat(32));
  t.teardown(async () => {
    await actors.close();
    rmSync(dir, { recursive: true, force: true });
  });
  t.deepEqual([...actors.handledTypes].sort(), [...COMMAND_TYPES].sort());
});

test('command table - each row is well formed', (t) => {
  for (const type of COMMAND_TYPES) {
    const rule = COMMAND_TABLE[type];
    t.true(typeof rule.route === 'function' || rule.route === 'every' || rule.route === 'named', type);
    t.true(rule.caller === 'front' || rule.caller === 'shard', type);
    // Only reads and long-polls may be sent twice; a long-poll is always one of them.
    if (rule.parks) t.true(rule.resend || type === 'feed.watch', `${type} parks`);
  }
});

test('command table - resend and parking sets are derived from it', (t) => {
  t.deepEqual([...PARKING].sort(), ['feed.watch', 'message.wait', 'session.events_after']);
  t.true(RESENDABLE.has('message.wait'));
  t.true(RESENDABLE.has('message.get'));
  t.false(RESENDABLE.has('inbox.deliver'), 'a delivery is not sent twice');
  t.false(RESENDABLE.has('account.admit'), 'an admission is not counted twice');
  t.false(RESENDABLE.has('shard.ping' as never), 'no row for a removed command');
  for (const type of RESENDABLE) t.true(COMMAND_TABLE[type].resend, type);
});

test('command table - slot moves and replication are for shards alone', (t) => {
  t.deepEqual([...SHARD_ONLY].sort(), COMMAND_TYPES.filter((type) => type.startsWith('slot.')).sort());
  t.true(SHARD_ONLY.size > 0);
});

test('command table - routing keys come from the rows', (t) => {
  const cases: [Command, string | null][] = [
    [{ type: 'account.create', id: 'acc_1', name: null, plan: 'free', key: 'k', created_at: '' }, 'acc_1'],
    [{ type: 'account.get', accountId: 'acc_2' }, 'acc_2'],
    [{ type: 'inbox.get', accountId: 'a', address: 'x@y.test' }, 'x@y.test'],
    [{ type: 'inbox.deliver', addresses: ['first@y.test', 'second@y.test'], message: {} as never, raw: new Uint8Array() }, 'first@y.test'],
    [{ type: 'domain.add', accountId: 'a', domain: 'example.org' }, 'example.org'],
    [{ type: 'webhook.register', accountId: 'a', inbox: 'w@y.test', url: 'https://h/', keySealed: new Uint8Array(), max: 1 }, 'w@y.test'],
    [{ type: 'inbox.list', accountId: 'a' }, null],
    [{ type: 'slot.head', slot: 3 }, null],
  ];
  for (const [command, key] of cases) t.is(routeKey(command), key, command.type);
});

test('command table - feed kinds are the dashboard changes each command causes', (t) => {
  t.is(feedKind('domain.add'), 'domains');
  t.is(feedKind('webhook.register'), 'webhooks');
  t.is(feedKind('inbox.deliver'), 'inbox');
  t.is(feedKind('message.list'), null);
});
