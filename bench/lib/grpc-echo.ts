// floor-grpc: a grpc-js echo server (run as its own process by floor-servers.ts) and the client that
// drives it: unary calls with a fixed number in flight, then the same over one bidi stream (the
// shape of Mailcue's front→shard channel), both over a unix socket like the embedded front uses.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { round, Samples, type Percentiles } from './stats.js';

const PROTO = fileURLToPath(new URL('./echo.proto', import.meta.url));

function service(): grpc.ServiceClientConstructor {
  const def = grpc.loadPackageDefinition(protoLoader.loadSync(PROTO, { keepCase: true }));
  return (def.bench as grpc.GrpcObject).Echo as grpc.ServiceClientConstructor;
}

export async function startGrpcEchoServer(target: string): Promise<grpc.Server> {
  const Echo = service();
  const server = new grpc.Server();
  server.addService(Echo.service, {
    Echo: (call: grpc.ServerUnaryCall<{ b: Buffer }, { b: Buffer }>, cb: grpc.sendUnaryData<{ b: Buffer }>) => cb(null, { b: call.request.b }),
    Chat: (call: grpc.ServerDuplexStream<{ b: Buffer }, { b: Buffer }>) => {
      call.on('data', (m: { b: Buffer }) => call.write(m));
      call.on('end', () => call.end());
    },
  });
  await new Promise<void>((resolve, reject) => server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return server;
}

export interface GrpcClientParams {
  target: string;
  inFlight: number;
  payloadBytes: number;
  durationS: number;
  warmupS: number;
}

export interface GrpcPhase {
  calls: number;
  duration_s: number;
  ops_per_s: number;
  latency: Percentiles;
  cpu_s: number;
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function unaryPhase(client: grpc.Client, p: GrpcClientParams, seconds: number): Promise<GrpcPhase> {
  const payload = Buffer.alloc(p.payloadBytes, 7);
  const latency = new Samples();
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  let calls = 0;
  let errors = 0;
  return new Promise((resolve) => {
    let active = p.inFlight;
    const echo = (client as unknown as { Echo(m: { b: Buffer }, cb: (e: Error | null) => void): void }).Echo.bind(client);
    // Flat loop: each completion starts the next call (no promise chains).
    const one = () => {
      if (performance.now() >= deadline) {
        if (--active === 0) {
          const duration = (performance.now() - t0) / 1000;
          resolve({ calls, duration_s: round(duration), ops_per_s: round(calls / duration, 1), latency: latency.percentiles(), cpu_s: round(cpuNow() - cpu0) });
        }
        return;
      }
      const s = performance.now();
      echo({ b: payload }, (err) => {
        if (err) errors++;
        else {
          calls++;
          latency.add(performance.now() - s);
        }
        one();
      });
    };
    for (let i = 0; i < p.inFlight; i++) one();
  });
}

function streamPhase(client: grpc.Client, p: GrpcClientParams, seconds: number): Promise<GrpcPhase> {
  const payload = Buffer.alloc(p.payloadBytes, 7);
  const latency = new Samples();
  const call = (client as unknown as { Chat(): grpc.ClientDuplexStream<{ b: Buffer }, { b: Buffer }> }).Chat();
  const sentAt: number[] = [];
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  let calls = 0;
  return new Promise((resolve, reject) => {
    let outstanding = 0;
    call.on('error', reject);
    call.on('data', () => {
      latency.add(performance.now() - sentAt.shift()!);
      calls++;
      outstanding--;
      if (performance.now() < deadline) send();
      else if (outstanding === 0) {
        call.end();
        const duration = (performance.now() - t0) / 1000;
        resolve({ calls, duration_s: round(duration), ops_per_s: round(calls / duration, 1), latency: latency.percentiles(), cpu_s: round(cpuNow() - cpu0) });
      }
    });
    const send = () => {
      outstanding++;
      sentAt.push(performance.now());
      call.write({ b: payload });
    };
    for (let i = 0; i < p.inFlight; i++) send();
  });
}

export async function runGrpcClient(p: GrpcClientParams): Promise<{ unary: GrpcPhase; stream: GrpcPhase }> {
  const Echo = service();
  const client = new Echo(p.target, grpc.credentials.createInsecure());
  await new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 10_000, (e) => (e ? reject(e) : resolve())));
  try {
    if (p.warmupS > 0) await unaryPhase(client, p, p.warmupS);
    const unary = await unaryPhase(client, p, p.durationS);
    const stream = await streamPhase(client, p, Math.max(1, p.durationS / 2));
    return { unary, stream };
  } finally {
    client.close();
  }
}
