// The one way Mailcue connects out to an address a user named (webhook receivers, OAuth Client ID
// Metadata Documents): an undici Agent whose connect-time lookup resolves through the configured
// resolvers and refuses every non-public address (DESIGN §7), so a name that resolves to a private
// address now (DNS rebinding) is refused at the connection itself. MAILCUE_WEBHOOK_ALLOW_PRIVATE
// (tests) lifts the refusal; MAILCUE_WEBHOOK_CA_FILE adds a CA (a self-signed test receiver).
import { readFileSync } from 'node:fs';
import type { Resolver } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { isRefusedAddress, resolveTarget } from './address-policy.js';

export interface OutboundPolicy {
  readonly webhookAllowPrivate: boolean;
  readonly webhookCaFile: string | null;
}

export function publicOnlyAgent(policy: OutboundPolicy, resolver: Resolver, connections: number): Agent {
  const lookup: LookupFunction = (hostname, _options, callback) => {
    resolveTarget(resolver, hostname, policy.webhookAllowPrivate).then(
      (t) => (callback as (e: Error | null, a: string, f: number) => void)(null, t.address, t.family),
      (err: Error) => (callback as (e: Error | null, a: string, f: number) => void)(err, '', 4),
    );
  };
  // One secure context, built once, rather than the CA list parsed again per connection.
  const secureContext = policy.webhookCaFile
    ? createSecureContext({ ca: [...rootCertificates, readFileSync(policy.webhookCaFile, 'utf8')] })
    : undefined;
  // undici never follows redirects unless told to, and `lookup` reaches its tls.connect, so the
  // connect-time address check holds.
  return new Agent({ connections, connect: { lookup, ...(secureContext ? { secureContext } : {}) } });
}

/**
 * Node connects to an address literal without calling `lookup`: the reason such a URL's host is
 * refused, checked before connecting, or null when it may be reached.
 */
export function refusedLiteral(policy: OutboundPolicy, url: URL): string | null {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  return !policy.webhookAllowPrivate && isIP(literal) && isRefusedAddress(literal) ? `${literal} is not a public address` : null;
}
