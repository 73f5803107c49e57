// floor-grpc: grpc-js unary echo calls/s over a unix socket (the socket kind the embedded front
// uses to reach its shards), 64 calls in flight, 256-byte payloads. Also reported: the same echo
// over one bidi stream, the channel shape Mailcue's front actually uses.
import path from 'node:path';
import { startFloorServer } from '../lib/floor-server.js';
import { Generator } from '../lib/generator.js';
import type { GrpcPhase } from '../lib/grpc-echo.js';
import { stop } from '../lib/proc.js';
import { cores, cpuShare, foreignCores, measure, type Scenario } from '../lib/scenario.js';

interface Params {
  inFlight: number;
  payloadBytes: number;
  durationS: number;
  warmupS: number;
}

export const floorGrpc: Scenario<Params> = {
  name: 'floor-grpc',
  title: 'grpc-js unary echo calls/s over a unix socket (machine floor for the front→shard hop)',
  full: { inFlight: 64, payloadBytes: 256, durationS: 10, warmupS: 2 },
  quick: { inFlight: 64, payloadBytes: 256, durationS: 2, warmupS: 1 },
  timeLimitS: (quick) => (quick ? 25 : 50),
  async run(ctx, p) {
    const target = `unix:${path.join(ctx.tmp, 'floor-grpc.sock')}`;
    const server = await startFloorServer('floor-grpc', 'grpc', target);
    const client = await Generator.start('grpc-client');
    try {
      const c0 = await client.cpu();
      const m = await measure(() => [{ name: 'floor-grpc', pid: server.pid }], () =>
        client.call<{ unary: GrpcPhase; stream: GrpcPhase }>('grpcClient', { target, ...p }, (p.durationS * 2 + p.warmupS + 30) * 1000));
      const { unary, stream } = m.value;
      const clientCpu = (await client.cpu()) - c0;
      return {
        ops: unary.calls, duration_s: unary.duration_s, ops_per_s: unary.ops_per_s, ...unary.latency, peak_rss_mb: m.peak_rss_mb,
        client_cpu_share: cpuShare(unary.cpu_s, unary.duration_s), generator: 'grpc-js client (node)', in_flight: p.inFlight, payload_bytes: p.payloadBytes,
        client_cpu_cores: cores(unary.cpu_s, unary.duration_s), server_cpu_cores: cores(m.server_cpu_s, m.wall_s), foreign_cpu_cores: foreignCores(m, clientCpu),
        bidi_stream: { ops: stream.calls, ops_per_s: stream.ops_per_s, ...stream.latency, client_cpu_cores: cores(stream.cpu_s, stream.duration_s) },
      };
    } finally {
      await client.stop();
      await stop(server);
    }
  },
};
