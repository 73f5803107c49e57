// Starts a real single-member etcd (Debian's etcd-server; scripts/test-setup.js installs it) on
// free loopback ports in a temp dir, and stops it by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './service.js';

export interface EtcdServer {
  /** http://127.0.0.1:PORT, the client URL. */
  readonly endpoint: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
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
  const child = spawn('etcd', [
    '--name', 'test',
    '--data-dir', path.join(dir, 'data'),
    '--listen-client-urls', endpoint,
    '--advertise-client-urls', endpoint,
    '--listen-peer-urls', peer,
    '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `test=${peer}`,
    '--log-level', 'error',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString()).slice(-4000);
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const end = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < end) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`etcd exited (${child.exitCode}): ${stderr}`);
    }
    try {
      const res = await fetch(`${endpoint}/health`);
      if (res.ok && ((await res.json()) as { health: string }).health === 'true') return { endpoint, process: child, stop };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`etcd not healthy after ${READY_TIMEOUT_MS} ms: ${stderr}`);
}
