// Which addresses a webhook may reach: public ones only, unless MAILCUE_WEBHOOK_ALLOW_PRIVATE is
// set (tests). Checked at registration and again at every attempt, so a name that later resolves
// to a private address (DNS rebinding) is refused.
import { BlockList, isIP } from 'node:net';
import type { Resolver } from 'node:dns/promises';

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return true;
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/** Resolves a webhook host and applies the policy; throws with a reason on refusal. */
export async function resolveTarget(resolver: Resolver, hostname: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  let candidates: ResolvedTarget[];
  if (isIP(bare)) {
    candidates = [{ address: bare, family: isIP(bare) as 4 | 6 }];
  } else if (bare === 'localhost' || bare.endsWith('.localhost')) {
    candidates = [{ address: '127.0.0.1', family: 4 }];
  } else {
    const [v4, v6] = await Promise.all([resolver.resolve4(bare).catch(() => [] as string[]), resolver.resolve6(bare).catch(() => [] as string[])]);
    candidates = [...v4.map((a) => ({ address: a, family: 4 as const })), ...v6.map((a) => ({ address: a, family: 6 as const }))];
    if (candidates.length === 0) throw new Error(`${bare} does not resolve`);
  }
  if (!allowPrivate) {
    const bad = candidates.find((c) => isPrivateAddress(c.address));
    if (bad) throw new Error(`${bare} resolves to a private or loopback address (${bad.address})`);
  }
  return candidates[0]!;
}
