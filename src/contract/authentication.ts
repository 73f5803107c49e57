// The sender-authentication record kept with each message (issue 19) and the decisions made from
// it. Pure: the ingress fills it (src/ingress/mail-auth.ts), the shard and the views read it.

/** The compact verdict shown in summaries, tool results and webhooks. */
export type AuthVerdict = 'pass' | 'fail' | 'none' | 'temperror';

export interface DkimSignatureResult {
  domain: string;
  selector: string;
  /** RFC 8601 result: pass, fail, neutral, policy, temperror, permerror. */
  result: string;
}

export interface Authentication {
  /** RFC 7208 result for the MAIL FROM domain (or the HELO name for an empty MAIL FROM). */
  spf: string;
  /** One entry per DKIM-Signature header, in header order. */
  dkim: DkimSignatureResult[];
  /** DMARC result for the From domain: pass, fail, none, temperror, permerror. */
  dmarc: string;
  /** The policy the From domain publishes (p= or sp=), null without a record. */
  dmarc_policy: string | null;
  /** ARC chain result when the message carries ARC headers, else null. */
  arc: string | null;
  /** Whether a passing SPF or DKIM identity aligns with the From domain. */
  aligned: boolean;
  from_domain: string | null;
  summary: AuthVerdict;
  /** True while verification is still running after the SMTP answer (see docs/security.md "Trusting mail"). */
  pending: boolean;
  /** DKIM signatures past the per-message bound of checks, left unchecked (issue 33); absent when none. */
  dkim_unchecked?: number;
  /** Why the authors leave no single domain to judge (several From fields or authors, a bad domain): the verdict is fail. */
  author_problem?: string;
}

/** What a message carries while its verification outlasts the SMTP answer. */
export function pendingAuthentication(): Authentication {
  return { spf: 'temperror', dkim: [], dmarc: 'temperror', dmarc_policy: null, arc: null, aligned: false, from_domain: null, summary: 'temperror', pending: true };
}

/** For a message that could not be checked at all (or one stored before checks existed). */
export function unverified(): Authentication {
  return { spf: 'none', dkim: [], dmarc: 'none', dmarc_policy: null, arc: null, aligned: false, from_domain: null, summary: 'none', pending: false };
}

/**
 * One verdict from the parts. DMARC decides when the From domain publishes a policy; without one,
 * an aligned pass is a pass, a failed SPF or broken signature a fail, a DNS failure a temperror.
 */
export function verdictOf(a: Omit<Authentication, 'summary' | 'pending'>): AuthVerdict {
  switch (a.dmarc) {
    case 'pass':
      return 'pass';
    case 'fail':
      return 'fail';
    case 'temperror':
      return 'temperror';
  }
  const dkimPass = a.dkim.some((d) => d.result === 'pass');
  if (a.aligned && (dkimPass || a.spf === 'pass')) return 'pass';
  if (a.spf === 'temperror' || a.dkim.some((d) => d.result === 'temperror')) return 'temperror';
  // A signature that cannot be verified (no key, a bad key, expired) is broken, not absent (issue 33).
  if (a.spf === 'fail' || a.spf === 'permerror' || a.dkim.some((d) => d.result === 'fail' || d.result === 'permerror')) return 'fail';
  return 'none';
}

export function verdict(a: Authentication | undefined): AuthVerdict {
  return a?.summary ?? 'none';
}

/**
 * Whether a message may answer a wait on an inbox with `require_auth`: verification has finished
 * and the verdict is neither fail (every DMARC failure is one) nor temperror (a DNS failure must
 * not let a spoofed code through).
 */
export function answersAuthWait(a: Authentication | undefined): boolean {
  if (!a) return false;
  return !a.pending && trustedVerdict(a.summary);
}

/** The same test on the compact verdict (a pending check reads temperror there). */
export function trustedVerdict(v: AuthVerdict): boolean {
  return v === 'pass' || v === 'none';
}
