// Container health probe for images without curl or grpc_health_probe (node:20-bookworm-slim).
//
//   node deploy/healthcheck.mjs http [PATH]    GET http://127.0.0.1:$MAILCUE_HTTP_PORT$PATH (default /livez)
//   node deploy/healthcheck.mjs grpc [HOST:PORT] grpc.health.v1.Health/Check (default 127.0.0.1:7000)
//
// Exits 0 when healthy, 1 otherwise. Used by the Dockerfile HEALTHCHECK (fronts / serve) and by
// docker-compose for shard containers (over mutual TLS when MAILCUE_TLS_* are set). Kubernetes
// uses its native httpGet / TCP probes instead.
const [mode = 'http', arg] = process.argv.slice(2);
const TIMEOUT_MS = 3000;

function done(ok, why) {
  if (!ok) console.error(`healthcheck: ${why}`);
  process.exit(ok ? 0 : 1);
}

if (mode === 'http') {
  const port = process.env.MAILCUE_HTTP_PORT || '8080';
  const url = `http://127.0.0.1:${port}${arg || '/livez'}`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    done(res.ok, `${url} answered ${res.status}`);
  } catch (err) {
    done(false, `${url}: ${err.message}`);
  }
} else if (mode === 'grpc') {
  const grpc = await import('@grpc/grpc-js');
  const { readFileSync } = await import('node:fs');
  const target = arg || '127.0.0.1:7000';
  // With mutual TLS the probe presents the process's own certificate (MAILCUE_TLS_*), checking the
  // shard's against the CA under MAILCUE_TLS_SERVER_NAME or "localhost".
  const { MAILCUE_TLS_CA: ca, MAILCUE_TLS_CERT: cert, MAILCUE_TLS_KEY: key, MAILCUE_TLS_SERVER_NAME: name } = process.env;
  const tls = ca && cert && key;
  const credentials = tls ? grpc.credentials.createSsl(readFileSync(ca), readFileSync(key), readFileSync(cert)) : grpc.credentials.createInsecure();
  const client = new grpc.Client(target, credentials, tls ? { 'grpc.ssl_target_name_override': name || 'localhost' } : {});
  // HealthCheckRequest{service: ""} encodes to zero bytes; HealthCheckResponse{status: SERVING(1)}
  // encodes to 0x08 0x01, so no .proto file is needed here.
  const id = (b) => b;
  client.makeUnaryRequest('/grpc.health.v1.Health/Check', id, id, Buffer.alloc(0), { deadline: Date.now() + TIMEOUT_MS }, (err, res) => {
    client.close();
    if (err) return done(false, `${target}: ${err.message}`);
    done(res.length >= 2 && res[0] === 0x08 && res[1] === 1, `${target} is not SERVING`);
  });
} else {
  done(false, `unknown mode "${mode}" (expected http or grpc)`);
}
