// Live DNS lookups for custom-domain verification, through MAILCUE_DNS_SERVERS or the system
// resolvers. A missing record and a failed lookup are different answers: only the first means
// "not configured yet".
import type { Resolver } from 'node:dns/promises';
import { fail } from '../errors/registry.js';

const MISSING = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

export interface DnsFindings {
  mx: string[];
  txt: string[];
}

async function lookup<T>(what: string, domain: string, run: () => Promise<T[]>): Promise<T[]> {
  try {
    return await run();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (MISSING.has(code)) return [];
    fail('dns_lookup_failed', `The ${what} lookup for ${domain} failed (${code || 'error'}); this is not a missing record, try again`, { verified: false });
  }
}

export async function lookupDomain(resolver: Resolver, domain: string): Promise<DnsFindings> {
  const [mx, txt] = await Promise.all([
    lookup('MX', domain, () => resolver.resolveMx(domain)),
    lookup('TXT', domain, () => resolver.resolveTxt(domain)),
  ]);
  return {
    mx: mx.map((r) => r.exchange.toLowerCase().replace(/\.$/, '')),
    txt: txt.map((chunks) => chunks.join('')),
  };
}
