// Container health probe for images without curl or grpc_health_probe (node:20-bookworm-slim).
//
//   node deploy/healthcheck.mjs http [PATH]    GET http://127.0.0.1:$MAILCUE_HTTP_PORT$PATH (default /livez)
//   node deploy/healthcheck.mjs grpc [HOST:PORT] grpc.health.v1.Health/Check (default 127.0.0.1:7000)
//
// Exits 0 when healthy, 1 otherwise. Used by the Dockerfile HEALTHCHECK (fronts / serve) and by
// docker-compose for shard containers. Kubernetes uses its native httpGet / grpc probes instead.
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
  const target = arg || '127.0.0.1:7000';
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
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
