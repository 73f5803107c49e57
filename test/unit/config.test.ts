import test from 'ava';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/config.js';

test('config - defaults match DESIGN §2', (t) => {
  const c = loadConfig({});
  t.is(c.httpPort, 8080);
  t.is(c.smtpPort, 2525);
  t.is(c.shardCount, 2);
  t.deepEqual(c.domains, ['mailcue.test']);
  t.is(c.mxHost, 'mx.mailcue.test');
  t.is(c.publicUrl, 'http://localhost:8080');
  t.deepEqual(c.webhookRetryDelaysMs, [2000, 10000, 50000]);
  t.is(c.plans.growth.monthlyCredits, 100_000);
  t.true(Object.isFrozen(c) && Object.isFrozen(c.plans.growth));
});

test('config - bad values fail with one clear line naming the variable', (t) => {
  t.throws(() => loadConfig({ MAILCUE_HTTP_PORT: 'abc' }), { instanceOf: ConfigError, message: /MAILCUE_HTTP_PORT/ });
  t.throws(() => loadConfig({ MAILCUE_DOMAINS: 'not a domain' }), { message: /MAILCUE_DOMAINS/ });
  t.throws(() => loadConfig({ MAILCUE_MONTHLY_CREDITS: 'gold=5' }), { message: /MAILCUE_MONTHLY_CREDITS/ });
  t.throws(() => loadConfig({ MAILCUE_SHARDS: 'x' }), { message: /MAILCUE_SHARDS/ });
});

test('config - a config file mirrors the variables and the environment wins', (t) => {
  const file = path.join(os.tmpdir(), `mailcue-config-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ MAILCUE_HTTP_PORT: 9000, MAILCUE_SMTP_PORT: 2600, MAILCUE_DOMAINS: ['a.test', 'b.test'] }));
  const c = loadConfig({ MAILCUE_CONFIG: file, MAILCUE_SMTP_PORT: '2700' });
  rmSync(file);
  t.is(c.httpPort, 9000);
  t.is(c.smtpPort, 2700);
  t.deepEqual(c.domains, ['a.test', 'b.test']);
});

test('config - cluster settings: etcd endpoints and prefix, lease TTL, TLS files all or none', (t) => {
  const c = loadConfig({ MAILCUE_ETCD_ENDPOINTS: 'http://a:2379, http://b:2379', MAILCUE_ETCD_PREFIX: '/prod', MAILCUE_LEASE_TTL_S: '7' });
  t.deepEqual(c.etcdEndpoints, ['http://a:2379', 'http://b:2379']);
  t.is(c.etcdPrefix, '/prod/');
  t.is(c.leaseTtlS, 7);
  t.is(loadConfig({}).etcdPrefix, '/mailcue/');
  t.is(loadConfig({}).leaseTtlS, 5);
  t.is(loadConfig({}).tls, null);
  t.throws(() => loadConfig({ MAILCUE_LEASE_TTL_S: '1' }), { message: /MAILCUE_LEASE_TTL_S/ });
  t.throws(() => loadConfig({ MAILCUE_TLS_CA: 'ca.pem' }), { message: /missing MAILCUE_TLS_CERT, MAILCUE_TLS_KEY/ });
});

test('config - an admin token shorter than 32 characters, or the deploy example\'s placeholder, refuses to start', (t) => {
  for (const token of ['change-me', 'test-admin-token', 'x'.repeat(31), 'CHANGE_ME_TOO', `change-me-${'x'.repeat(40)}`]) {
    const err = t.throws(() => loadConfig({ MAILCUE_ADMIN_TOKEN: token }), { instanceOf: ConfigError });
    t.regex(err!.message, /^MAILCUE_ADMIN_TOKEN must be at least 32 characters/);
    t.false(err!.message.includes('\n'));
  }
  // What deploy/ ships as the example secret is refused as written.
  const secret = /MAILCUE_ADMIN_TOKEN:\s*"([^"]*)"/.exec(readFileSync(new URL('../../deploy/k8s/secret.example.yaml', import.meta.url), 'utf8'))![1]!;
  t.throws(() => loadConfig({ MAILCUE_ADMIN_TOKEN: secret }), { instanceOf: ConfigError });
  t.is(loadConfig({ MAILCUE_ADMIN_TOKEN: 'a'.repeat(48) }).adminToken, 'a'.repeat(48));
  t.is(loadConfig({}).adminToken, null);
});
