// Roles between tiers (DESIGN.md §8 "Between tiers"): with mutual TLS every cluster certificate
// names its holder's tier in a URI subject alternative name, `spiffe://mailcue/front` or
// `spiffe://mailcue/shard`. A shard reads the role from the peer's certificate and serves a front
// only front commands: slot moves and replication (`slot.*`) come from shards alone, so a front's
// key cannot freeze a slot, wipe copies or inject records. A certificate of the cluster CA without
// a role gets a front's rights. Without TLS (loopback, or `--insecure`) there is no certificate to
// read and no role is checked.
import type { PeerCertificate } from 'node:tls';
import { COMMAND_TABLE, type CommandRule, type CommandType } from '../contract/command-table.js';

export type PeerRole = 'front' | 'shard';

/** The URI SAN of each role's certificate. */
export const ROLE_URIS: Readonly<Record<PeerRole, string>> = {
  front: 'spiffe://mailcue/front',
  shard: 'spiffe://mailcue/shard',
};

/** The role a certificate names, or null when it names none (or both, which is no role either). */
export function roleOfCertificate(cert: Pick<PeerCertificate, 'subjectaltname'> | null | undefined): PeerRole | null {
  const uris = (cert?.subjectaltname ?? '').split(',').map((s) => s.trim()).filter((s) => s.startsWith('URI:')).map((s) => s.slice(4));
  const roles = (Object.keys(ROLE_URIS) as PeerRole[]).filter((role) => uris.includes(ROLE_URIS[role]));
  return roles.length === 1 ? roles[0]! : null;
}

/** What a caller on a TLS connection may do: its certificate's role, a front's rights when it names none. */
export function peerRole(auth: { transportSecurityType?: string; sslPeerCertificate?: PeerCertificate } | null | undefined): PeerRole {
  if (auth?.transportSecurityType !== 'ssl') return 'shard';
  return roleOfCertificate(auth.sslPeerCertificate) ?? 'front';
}

/** Which tier sends a command (the contract's `caller` column): slot moves and replication are shards' business only. */
export function callerOf(type: CommandType): PeerRole {
  return (COMMAND_TABLE[type] as CommandRule<CommandType> | undefined)?.caller ?? 'shard';
}

/** Whether a peer of `role` may send a command of `type`. */
export function mayCall(role: PeerRole, type: CommandType): boolean {
  return role === 'shard' || callerOf(type) === 'front';
}
