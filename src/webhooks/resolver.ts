// The DNS resolver webhook targets (and custom-domain checks) go through: MAILCUE_DNS_SERVERS when
// set, the system resolvers otherwise. Short timeouts, since a registration waits on it.
import { Resolver } from 'node:dns/promises';

export function makeResolver(servers: readonly string[], timing = { timeout: 2500, tries: 2 }): Resolver {
  const resolver = new Resolver(timing);
  if (servers.length > 0) resolver.setServers([...servers]);
  return resolver;
}
