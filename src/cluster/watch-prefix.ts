// Watches every key under a prefix and calls back once per burst of changes (members joining,
// leases expiring, drain requests), so readers re-read a consistent listing instead of patching.
import type { Namespace } from './etcd.js';

export async function watchPrefix(ns: Namespace, prefix: string, onChange: () => void): Promise<{ close(): Promise<void> }> {
  let queued = false;
  const fire = () => {
    if (queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      onChange();
    });
  };
  const watcher = await ns.watch().prefix(prefix).create();
  watcher.on('put', fire);
  watcher.on('delete', fire);
  // After a reconnect events may have been compacted away: re-read.
  watcher.on('connected', fire);
  return { close: () => watcher.cancel() };
}
