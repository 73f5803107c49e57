// Starts one of floor-servers.ts's servers as a child process and waits for its "ready" line.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { start, waitFor, type Child } from './proc.js';

const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'floor-servers.ts');

export async function startFloorServer(name: string, kind: 'uws' | 'uws-shard' | 'grpc' | 'smtp' | 'smtp-shard', where: string): Promise<Child> {
  const child = start(name, process.execPath, ['--import', 'tsx', ENTRY, kind, where]);
  await waitFor(`${name} ready`, () => {
    if (child.exited) throw new Error(`${name} exited: ${child.output.join(' | ')}`);
    return child.output.includes('ready');
  }, 20_000).catch((err) => {
    if (child.exited) throw new Error(`${name} exited (${child.exitCode}): ${child.output.slice(-5).join(' | ')}`);
    throw err;
  });
  return child;
}
