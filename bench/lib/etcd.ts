// A single-member etcd on free loopback ports in a temp dir, for the cluster benches: started with
// the other bench children (so stopAll() stops it by PID) and ready once /health says so.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './net-util.js';
import { start, waitFor, type Child } from './proc.js';

const READY_TIMEOUT_MS = 30_000;

export interface Etcd {
  readonly endpoint: string;
  readonly child: Child;
}

export async function startEtcd(dir: string): Promise<Etcd> {
  mkdirSync(dir, { recursive: true });
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child = start('etcd', 'etcd', [
    '--name', 'bench', '--data-dir', path.join(dir, 'data'),
    '--listen-client-urls', endpoint, '--advertise-client-urls', endpoint,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `bench=${peer}`,
    '--log-level', 'error',
  ]);
  await waitFor('etcd healthy', async () => {
    // An exited etcd answers nothing: stop waiting at once.
    if (child.exited) return 'exited';
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2000) });
    return res.ok && ((await res.json()) as { health: string }).health === 'true';
  }, READY_TIMEOUT_MS, 100);
  if (child.exited) throw new Error(`etcd exited (${child.exitCode}): ${child.output.slice(-5).join('\n')}`);
  return { endpoint, child };
}
