// How much of an account's limits a front may hold in advance as an admission lease (DESIGN §7,
// issue 18; src/security/admission-leases.ts is the front's side).

/**
 * A lease takes at most this share of what is left of a limit. What a front holds unspent is
 * counted, so another front may be refused up to that much early; near the limit leases shrink to
 * nothing and admission is exact again.
 */
const LEASE_SHARE = 64;
/** Smaller leases are not granted: they would save less than they cost to track. */
const LEASE_MIN = 2;

/** How many of `want` admissions a lease may take from `left` (0 when none is wanted). */
export function leaseSize(want: number, left: number): number {
  const granted = Math.min(want, Math.floor(left / LEASE_SHARE));
  return granted >= LEASE_MIN ? granted : 0;
}

/** A lease of tool calls holds their credits too, at the asking call's multiplier: both limits bound it. */
export function toolLeaseSize(want: number, opsLeft: number, creditsLeft: number, multiplier: number): number {
  if (multiplier <= 0) return 0;
  const granted = Math.min(leaseSize(want, opsLeft), Math.floor(leaseSize(want * multiplier, creditsLeft) / multiplier));
  return granted >= LEASE_MIN ? granted : 0;
}
