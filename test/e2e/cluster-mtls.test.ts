// End to end: shards and front over mutual TLS with certificates made at test time, each tier with
// its role (src/rpc/roles.ts); a client without the cluster's certificate is refused; a front's
// certificate (or one naming no role) may not send a shard's commands; no plaintext listener off
// loopback.
import test from 'ava';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MailcueError } from '../../src/errors/registry.js';
import { CHANNEL_OPTIONS, grpc, HealthService } from '../../src/rpc/proto.js';
import { ShardClient } from '../../src/rpc/shard-client.js';
import { makeCerts, type TestCerts } from '../helpers/certs.js';
import { startReceiver, type Receiver } from '../helpers/https-receiver.js';
import { sendMail } from '../helpers/mail.js';
import { freePort, startService, type Service } from '../helpers/service.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
let certs: TestCerts;
let svc: Service;
let receiver: Receiver;

test.before(async () => {
  certs = makeCerts();
  receiver = await startReceiver();
  svc = await startService({
    clusterShards: 2, frontEnv: certs.frontEnv,
    env: { ...certs.env, MAILCUE_WEBHOOK_ALLOW_PRIVATE: 'true', MAILCUE_WEBHOOK_CA_FILE: receiver.caFile },
  });
});
test.after.always(async () => {
  await svc?.stop();
  await receiver?.close();
  certs?.remove();
});

function shardTargets(): string[] {
  return svc.env.MAILCUE_SHARDS!.split(',').map((entry) => entry.split('=')[1]!);
}

function shardTarget(): string {
  return shardTargets()[0]!;
}

/** One gRPC health check against a shard with the given channel credentials. */
function healthCheck(credentials: grpc.ChannelCredentials): Promise<string> {
  const client = new HealthService(shardTarget(), credentials, CHANNEL_OPTIONS) as unknown as grpc.Client & { Check: Function };
  return new Promise((resolve) => {
    client.Check({ service: '' }, { deadline: Date.now() + 20_000 }, (err: grpc.ServiceError | null, res: { status: string }) => {
      client.close();
      resolve(err ? `error ${grpc.status[err.code]}` : res.status);
    });
  });
}

test('mtls - the front reaches the shards over mutual TLS', async (t) => {
  const { api_key } = await svc.createAccount('free');
  const res = await svc.api(api_key, 'POST', '/v1/inboxes', {});
  t.is(res.status, 201);
  t.is((await fetch(`${svc.baseUrl}/readyz`)).status, 200);
});

test('mtls - a shard answers a client holding a certificate of the cluster CA', async (t) => {
  const ca = readFileSync(certs.ca);
  t.is(await healthCheck(grpc.credentials.createSsl(ca, readFileSync(certs.key), readFileSync(certs.cert))), 'SERVING');
});

test('mtls - a client without a certificate, with another CA\'s certificate, or in plaintext is refused', async (t) => {
  const ca = readFileSync(certs.ca);
  t.regex(await healthCheck(grpc.credentials.createSsl(ca)), /^error/);
  t.regex(await healthCheck(grpc.credentials.createSsl(ca, readFileSync(certs.strangerKey), readFileSync(certs.strangerCert))), /^error/);
  t.regex(await healthCheck(grpc.credentials.createInsecure()), /^error/);
});

/** One command to a shard over the Mailbox stream with this certificate: its result, or its error's code. */
async function callWith(cert: string, key: string, command: Parameters<ShardClient['call']>[0], target = shardTarget()): Promise<string> {
  const client = new ShardClient(0, target, undefined, { ca: readFileSync(certs.ca), cert: readFileSync(cert), key: readFileSync(key), serverName: null });
  try {
    return `ok ${JSON.stringify(await client.call(command))}`;
  } catch (err) {
    return err instanceof MailcueError ? err.code : `error ${(err as Error).message}`;
  } finally {
    client.close();
  }
}

test('mtls - a front\'s certificate may not send slot commands; a shard\'s may', async (t) => {
  const freeze = { type: 'slot.freeze', slot: 7 } as const;
  const head = { type: 'slot.head', slot: 7 } as const;
  t.is(await callWith(certs.frontCert, certs.frontKey, freeze), 'forbidden_caller');
  t.is(await callWith(certs.frontCert, certs.frontKey, head), 'forbidden_caller');
  t.is(await callWith(certs.frontCert, certs.frontKey, { type: 'slot.replicate', batches: [{ slot: 7, epoch: 1, entries: [] }] }), 'forbidden_caller');
  // A certificate of the cluster CA that names no role has a front's rights, no more.
  t.is(await callWith(certs.roleless.cert, certs.roleless.key, head), 'forbidden_caller');
  // The shard's own role reaches the slot's log (its answer, whatever it is, is not a refusal by role).
  t.not(await callWith(certs.cert, certs.key, head), 'forbidden_caller');
  // The front's certificate still sends front commands.
  t.regex(await callWith(certs.frontCert, certs.frontKey, { type: 'shard.stats' }), /^ok /);
});

test('mtls - a front cannot read an account\'s API key: it gets it sealed, and webhooks still sign with it', async (t) => {
  const { id, api_key } = await svc.createAccount('growth');
  // The account lives on one shard; the other answers not_found.
  const answers = await Promise.all(shardTargets().map((target) => callWith(certs.frontCert, certs.frontKey, { type: 'account.sealed_key', accountId: id }, target)));
  const sealed = answers.find((a) => a.startsWith('ok '));
  t.truthy(sealed, JSON.stringify(answers));
  t.false(sealed!.includes(api_key), 'no plaintext key in the answer');
  t.false(sealed!.includes(JSON.stringify([...Buffer.from(api_key)]).slice(1, -1)), 'nor its bytes');
  for (const target of shardTargets()) {
    const old = await callWith(certs.frontCert, certs.frontKey, { type: 'account.api_key', accountId: id } as never, target);
    // An unknown command type: the shard answers nothing (undefined) or an error, never the key.
    t.false(old.includes(api_key), `no command answers the plaintext key: ${old}`);
  }
  // A webhook registered through the front (the key crosses it sealed) signs with the key: the receiver checks.
  receiver.key = api_key;
  for (let i = 0; i < 4; i++) {
    const address = `sealed${i}@mailcue.test`;
    t.is((await svc.api(api_key, 'POST', '/v1/inboxes', { address })).status, 201);
    t.is((await svc.api(api_key, 'POST', '/v1/webhooks', { url: `${receiver.url}?i=${i}`, inbox: address })).status, 201);
  }
  await sendMail(svc.smtpPort, { to: ['sealed0@mailcue.test', 'sealed1@mailcue.test', 'sealed2@mailcue.test', 'sealed3@mailcue.test'], subject: 'sealed', text: 'hi' });
  await receiver.waitFor(4, 60_000);
  t.deepEqual(receiver.deliveries.map((d) => d.status), [200, 200, 200, 200], 'every notification signed with the API key');
});

function runShard(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, 'shard', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += b));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

test('mtls - a shard without TLS refuses a non-loopback listen address, naming the fix', async (t) => {
  const env = { ...svc.env, MAILCUE_TLS_CA: '', MAILCUE_TLS_CERT: '', MAILCUE_TLS_KEY: '' };
  const { code, stderr } = await runShard(['--id', '9', '--listen', `0.0.0.0:${await freePort()}`, '--data', `${svc.dataDir}/refused`], env);
  t.is(code, 1);
  t.regex(stderr.trim(), /^mailcue: refusing to listen on 0\.0\.0\.0:\d+ without TLS: set MAILCUE_TLS_CA, MAILCUE_TLS_CERT and MAILCUE_TLS_KEY, or pass --insecure$/);
});

test('mtls - half a TLS configuration is refused at start with one line', async (t) => {
  const env = { ...svc.env, MAILCUE_TLS_KEY: '' };
  const { code, stderr } = await runShard(['--id', '9', '--listen', `127.0.0.1:${await freePort()}`, '--data', `${svc.dataDir}/half`], env);
  t.is(code, 1);
  t.regex(stderr.trim(), /^mailcue: mutual TLS needs MAILCUE_TLS_CA, MAILCUE_TLS_CERT, MAILCUE_TLS_KEY together; missing MAILCUE_TLS_KEY$/);
});
