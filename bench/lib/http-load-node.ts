// The Node fallback HTTP load generator (used when wrk is missing): N keep-alive connections over
// raw sockets, each sending prebuilt HTTP/1.1 requests one at a time and timing each response.
// Runs in a generator child; ~4x the CPU per request of wrk, so prefer wrk.
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { round, Samples } from './stats.js';
import type { HttpLoadResult } from './http-load.js';

export interface NodeHttpLoadParams {
  host: string;
  port: number;
  connections: number;
  durationS: number;
  /** Raw HTTP/1.1 requests, sent round-robin. */
  requests: string[];
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('0\r\n\r\n');

/** Length of the first complete response in `buf`, or -1 while it is incomplete. */
function responseLength(buf: Buffer): { length: number; status: number } | null {
  const h = buf.indexOf(HEADER_END);
  if (h < 0) return null;
  const head = buf.toString('latin1', 0, h);
  const status = Number(head.slice(9, 12));
  const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (cl) {
    const total = h + 4 + Number(cl[1]);
    return buf.length >= total ? { length: total, status } : null;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const end = buf.indexOf(CHUNKED_END, h + 4);
    return end >= 0 ? { length: end + CHUNKED_END.length, status } : null;
  }
  return { length: h + 4, status };
}

export async function runHttpLoad(p: NodeHttpLoadParams): Promise<HttpLoadResult> {
  const reqs = p.requests.map((r) => Buffer.from(r, 'utf8'));
  const latency = new Samples();
  let next = 0;
  let ok = 0;
  let bad = 0;
  let errors = 0;
  const t0 = performance.now();
  const deadline = t0 + p.durationS * 1000;
  await Promise.all(Array.from({ length: p.connections }, () => new Promise<void>((resolve) => {
    const socket = net.connect({ host: p.host, port: p.port });
    socket.setNoDelay(true);
    let buf: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    const send = () => {
      if (performance.now() >= deadline) {
        socket.destroy();
        return resolve();
      }
      sentAt = performance.now();
      socket.write(reqs[next++ % reqs.length]!);
    };
    socket.on('connect', send);
    socket.on('data', (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      const r = responseLength(buf);
      if (!r) return;
      buf = buf.subarray(r.length);
      latency.add(performance.now() - sentAt);
      if (r.status >= 200 && r.status < 300) ok++;
      else bad++;
      send();
    });
    socket.on('error', () => {
      errors++;
    });
    socket.on('close', () => resolve());
  })));
  const duration = (performance.now() - t0) / 1000;
  return {
    generator: 'node', requests: ok + bad, non_2xx: bad, socket_errors: errors, duration_s: round(duration), ops_per_s: round((ok + bad) / duration, 1),
    latency: latency.percentiles(),
  };
}
