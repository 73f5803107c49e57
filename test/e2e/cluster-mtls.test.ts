// End to end: shards and front over mutual TLS with certificates made at test time; a client
// without the cluster's certificate is refused; no plaintext listener off loopback.
import test from 'ava';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHANNEL_OPTIONS, grpc, HealthService } from '../../src/rpc/proto.js';
import { makeCerts, type TestCerts } from '../helpers/certs.js';
import { freePort, startService, type Service } from '../helpers/service.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
let certs: TestCerts;
let svc: Service;

test.before(async () => {
  certs = makeCerts();
  svc = await startService({ clusterShards: 2, env: certs.env });
});
test.after.always(async () => {
  await svc?.stop();
  certs?.remove();
});

function shardTarget(): string {
  return svc.env.MAILCUE_SHARDS!.split(',')[0]!.split('=')[1]!;
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
