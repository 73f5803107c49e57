// Role addresses nobody may create on a service-owned domain (DESIGN §7 "Reserved addresses"): the
// mailboxes of RFC 2142 and those certificate authorities mail for domain validation (CA/Browser
// Forum baseline requirements 3.2.2.4.4), where a tenant would otherwise receive another's mail.

const RESERVED_LOCAL_PARTS = new Set([
  // Certificate authorities' domain validation.
  'admin', 'administrator', 'hostmaster', 'postmaster', 'webmaster', 'root', 'ssl-admin', 'ssladmin',
  // RFC 2142: business (§3), network operations (§4) and services (§5).
  'info', 'marketing', 'sales', 'support', 'abuse', 'noc', 'security', 'usenet', 'news', 'www', 'uucp', 'ftp',
]);

/** Whether the local part (before "+" sub-addressing, any case) is a reserved role name. */
export function isReservedLocalPart(localPart: string): boolean {
  const base = localPart.toLowerCase().split('+')[0]!;
  return RESERVED_LOCAL_PARTS.has(base);
}
