// Drain requests: `drain/<id>` marks a member whose slots the controller moves away. A member
// clears its own mark when it starts again, so a restarted pod takes slots again.
import type { Namespace } from './etcd.js';

export const DRAIN_PREFIX = 'drain/';

export async function requestDrain(ns: Namespace, id: string): Promise<void> {
  await ns.put(`${DRAIN_PREFIX}${id}`).value(new Date().toISOString());
}

export async function clearDrain(ns: Namespace, id: string): Promise<void> {
  await ns.delete().key(`${DRAIN_PREFIX}${id}`);
}

export async function readDrains(ns: Namespace): Promise<Set<string>> {
  const keys = await ns.getAll().prefix(DRAIN_PREFIX).keys();
  return new Set(keys.map((k) => k.slice(DRAIN_PREFIX.length)));
}
