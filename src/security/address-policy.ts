// Which addresses a webhook may reach: public unicast ones only, unless MAILCUE_WEBHOOK_ALLOW_PRIVATE
// is set (tests). Checked at registration and again at every connection, so a name that later
// resolves to a refused address (DNS rebinding) is refused. The classification is ipaddr.js's
// table of the IANA special-purpose registries (DESIGN §7), plus what it leaves out: IPv6 outside
// global unicast 2000::/3 (which takes in the deprecated IPv4-compatible ::/96, e.g. [::7f00:1])
// and so every IPv6 address that embeds an IPv4 one.
import ipaddr from 'ipaddr.js';
import type { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** IANA's global unicast block; every other IPv6 prefix is special-purpose or unallocated. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * True unless the address is a public unicast one (anything unparsable is refused). Every IPv6
 * prefix that embeds an IPv4 address (::/96, ::ffff:0:0/96, 64:ff9b::/96, 64:ff9b:1::/48, 6to4
 * 2002::/16, Teredo 2001::/32) is refused whole, so none can smuggle in a refused IPv4 one.
 */
export function isRefusedAddress(text: string): boolean {
  if (!ipaddr.isValid(text)) return true;
  const address = ipaddr.parse(text);
  if (address.kind() === 'ipv4') return address.range() !== 'unicast';
  const v6 = address as ipaddr.IPv6;
  return v6.range() !== 'unicast' || !v6.match(GLOBAL_UNICAST_V6);
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
    const bad = candidates.find((c) => isRefusedAddress(c.address));
    if (bad) throw new Error(`${bare} resolves to a non-public address (${bad.address})`);
  }
  return candidates[0]!;
}
