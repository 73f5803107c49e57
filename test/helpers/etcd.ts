// Starts a real single-member etcd (Debian's etcd-server; scripts/test-setup.js installs it) on
// free loopback ports in a temp dir, restarts it on the same data, and stops it by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './service.js';

export interface EtcdServer {
  /** http://127.0.0.1:PORT, the client URL. */
  readonly endpoint: string;
  /** The etcd process now (a restart replaces it). */
  readonly process: ChildProcess;
  stop(): Promise<void>;
  /** Kills etcd (SIGKILL unless told), waits `downMs`, starts it again on the same data and ports. */
  restart(downMs?: number, signal?: NodeJS.Signals): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;

export async function startEtcd(): Promise<EtcdServer> {
  // In memory where the machine has it: etcd fsyncs its log on every write, and on a disk busy with
  // the shards' own commits a late fsync can let a lease lapse, and with it a member (a flaky
  // test, not a Mailcue failure). What the tests check of etcd does not depend on its disk.
  const dir = mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'mailcue-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name', 'test',
    '--data-dir', path.join(dir, 'data'),
    '--listen-client-urls', endpoint,
    '--advertise-client-urls', endpoint,
    '--listen-peer-urls', peer,
    '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `test=${peer}`,
    '--log-level', 'error',
  ];
  let child = await spawnHealthy(args, endpoint, () => rmSync(dir, { recursive: true, force: true }));
  const server: EtcdServer = {
    endpoint,
    get process() {
      return child;
    },
    async stop() {
      await halt(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    async restart(downMs = 0, signal: NodeJS.Signals = 'SIGKILL') {
      await halt(child, signal);
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      // The same data dir and ports: its members' leases and the slot map survive the restart.
      child = await spawnHealthy(args, endpoint, () => undefined);
    },
  };
  return server;
}

/** Stops etcd with `signal` (SIGKILL after 5 s) and waits for it to exit. */
function halt(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/** Starts etcd and waits until /health says so; on failure stops it, calls `cleanUp` and throws. */
async function spawnHealthy(args: string[], endpoint: string, cleanUp: () => void): Promise<ChildProcess> {
  const child = spawn('etcd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString()).slice(-4000);
  });
  const fail = async (why: string) => {
    await halt(child, 'SIGTERM');
    cleanUp();
    return new Error(`${why}: ${stderr}`);
  };
  const end = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw await fail(`etcd exited (${child.exitCode})`);
    try {
      const res = await fetch(`${endpoint}/health`);
      if (res.ok && ((await res.json()) as { health: string }).health === 'true') return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw await fail(`etcd not healthy after ${READY_TIMEOUT_MS} ms`);
}
