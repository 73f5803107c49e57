// The client a per-IP limit counts (issue 33): an IPv4 address as it is, an IPv6 address by its
// /64 network, since one host is handed a whole /64 and can rotate through it at will. An IPv4
// address mapped into IPv6 (::ffff:a.b.c.d) counts as the IPv4 address.
import ipaddr from 'ipaddr.js';

export function clientKey(address: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address.replace(/%.*$/, ''));
  } catch {
    return address.toLowerCase();
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts;
  return `${parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
}
