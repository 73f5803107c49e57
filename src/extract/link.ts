// Picks the verification link: the one URL the reader is asked to follow to verify, confirm,
// activate, sign in or reset. Every link gets a small score from what it says and what precedes it.
//
// Scoring, per candidate link (anchor = the link text or image alt; for a plain-text URL, the
// sentence introducing it: "Confirm your email ( URL )", "Activate your account:\n<URL>"):
//   reject  the anchor or its lead-in is a "wasn't you?" sentence (a safety exit: "Didn't try to
//           sign in? Reset your password"), unless an "ignore this email" follows the negation
//   +5  the anchor asks for the act ("Verify email", "Konto aktivieren", "本登録を完了する"); sign-in
//       words ("Log in") count only when the subject or URL is about signing in (magic links)
//   -6  the anchor names another kind of link (unsubscribe, privacy, help, deny, report, track …);
//       this outranks any action word in the same anchor ("Cancel this sign-in")
//   ±3  the nearest keyword in the lead-in (same line, or the previous line when the link starts
//       its own line) asks for the act (+3) or names another kind of link (-3)
//   +1  an action word in the 300 characters before; +1 the subject asks for the act or sign-in
//   +2 / -3  the URL path or query spells the act (verify, confirm, reset, magic, token=) / another
//       kind (unsubscribe, privacy, report, deny); -6 social-network hosts; -4 logos
//   +1  the URL carries an opaque token
// A link is returned when it scores at least 4, carries a token (random-looking letters+digits:
// every verification, magic and reset link does; a plain login or dashboard link does not) or has
// both an action anchor and an action URL, and the act is asked for by the anchor, the lead-in or
// the URL. Highest score wins; ties go to the first.
// HTML anchors are scored first; plain-text URLs only when the HTML offers no verification link.
import { ACTION, linkKeywords, NEGATION, NEUTRALIZER, OTHER, SIGN_IN, SOCIAL_HOST, URL_ACTION, URL_OTHER, URL_SIGN_IN } from './link-keywords.js';
import type { Hit } from './keywords.js';
import { lineStart, previousLineStart, type UrlSpan } from './text-prep.js';

/** A link as the scorer sees it, whichever part it came from. */
export interface LinkCandidate {
  url: string;
  /** What the link says: anchor text, image alt, or the sentence just before a plain-text URL. */
  anchor: string;
  /** Text leading up to the anchor on its line; the previous line when the line holds nothing else. */
  lead: string;
  /** Up to 300 characters before the anchor. */
  wide: string;
  /** Image src/class and title (logo detection). */
  extra: string;
}

const MIN_SCORE = 4;
const MAX_LINKS = 300;
const TOKEN = /[A-Za-z0-9_-]{10,}/g;

function has(hits: Hit[], kind: number): boolean {
  return hits.some((h) => h.kind === kind);
}

/** A negation counts unless a neutralizer ("ignore", "disregard") comes after the last one. */
function negated(hits: Hit[]): boolean {
  let state = false;
  for (const h of hits) {
    if (h.kind === NEGATION) state = true;
    else if (h.kind === NEUTRALIZER) state = false;
  }
  return state;
}

/**
 * Whether the URL carries an opaque token in its path, query or fragment: 10+ characters that
 * look random (letters and digits alternating, or long mixed-case runs with digits), or 12+
 * digits. Verification, magic and reset links always do; a plain "Log in" or "Dashboard" link in
 * a welcome mail does not, so it is never returned. utm_* values ("welcome_2025") are ignored.
 */
function hasToken(url: string): boolean {
  const q = url.replace(/^[a-z]+:\/\/[^/?#]*/i, '').replace(/[?&]utm_[a-z]+=[^&#]*/gi, '');
  for (const m of q.matchAll(TOKEN)) {
    const t = m[0];
    if (/^\d{12,}$/.test(t)) return true;
    const digits = /[0-9]/.test(t);
    const mixedCase = /[a-z]/.test(t) && /[A-Z]/.test(t);
    if (!digits && !mixedCase) continue;
    const transitions = t.match(/[A-Za-z](?=\d)|\d(?=[A-Za-z])/g)?.length ?? 0;
    if (transitions >= 3 || (digits && mixedCase) || t.length >= 20) return true;
  }
  return false;
}

function hostOf(url: string): string {
  const m = /^[a-z]+:\/\/(?:[^@/?#]*@)?([^:/?#]*)/i.exec(url);
  return (m?.[1] ?? '').toLowerCase();
}

/** What the subject says, computed once per mail. */
export interface SubjectSignals {
  /** The subject asks to verify/confirm/activate/reset, or to sign in. */
  asks: boolean;
  signIn: boolean;
}

export function subjectSignals(subject: string): SubjectSignals {
  const hits = linkKeywords.find(subject);
  return { asks: has(hits, ACTION), signIn: has(hits, SIGN_IN) };
}

/** Score one candidate; returns null when the link does not ask for the act. */
export function scoreLink(c: LinkCandidate, subject: SubjectSignals): number | null {
  const anchorHits = linkKeywords.find(c.anchor);
  const leadHits = linkKeywords.find(c.lead);
  // A link offered to someone who "didn't request this" is a safety exit, whatever it says.
  if (negated([...leadHits, ...anchorHits])) return null;

  const host = hostOf(c.url);
  const rest = c.url.slice(c.url.indexOf(host) + host.length).toLowerCase();
  const urlAsks = URL_ACTION.test(rest);
  // "Sign in" asks for verification only in a mail about signing in: the subject or the URL must
  // agree, so "Log in to view your statement" behind a click tracker is not a magic link.
  const signInMail = subject.asks || subject.signIn || URL_SIGN_IN.test(rest);
  const asksIn = (hits: Hit[]): boolean => has(hits, ACTION) || (signInMail && has(hits, SIGN_IN));

  const anchorAsks = asksIn(anchorHits);
  let score = 0;
  if (has(anchorHits, OTHER)) score -= 6;
  else if (anchorAsks) score += 5;

  // The nearest keyword before the anchor decides the lead-in's vote.
  let leadAsks = false;
  for (let i = leadHits.length - 1; i >= 0; i--) {
    const k = leadHits[i]!.kind;
    if (k === ACTION || (k === SIGN_IN && signInMail)) {
      leadAsks = true;
      score += 3;
      break;
    }
    if (k === OTHER) {
      score -= 3;
      break;
    }
  }
  if (!leadAsks && linkKeywords.has(c.wide, ACTION)) score += 1;
  if (subject.asks || subject.signIn) score += 1;
  if (urlAsks) score += 2;
  if (URL_OTHER.test(rest)) score -= 3;
  if (SOCIAL_HOST.test(host)) score -= 6;
  if (/logo/.test(c.extra) || /logo/.test(c.anchor.toLowerCase())) score -= 4;
  const tokenised = hasToken(c.url);
  if (tokenised) score += 1;

  const asked = anchorAsks || leadAsks || urlAsks;
  // Without an opaque token, the anchor and the URL must both spell the act ("Confirm your email"
  // → /verify?token=ab12): a short token is still a verification link, a bare /login is not.
  const evidenced = tokenised || (has(anchorHits, ACTION) && urlAsks);
  return asked && evidenced && score >= MIN_SCORE ? score : null;
}

/** Best link among candidates (in mail order), or null. */
export function pickLink(candidates: LinkCandidate[], subject: SubjectSignals): string | null {
  let best: string | null = null;
  let bestScore = -Infinity;
  for (const c of candidates.slice(0, MAX_LINKS)) {
    const s = scoreLink(c, subject);
    if (s !== null && s > bestScore) {
      best = c.url;
      bestScore = s;
    }
  }
  return best;
}

export function isWebUrl(href: string): boolean {
  return /^https?:\/\/[^\s/?#]+/i.test(href);
}

/** The last sentence of a label: "Didn't try to sign in? Reset your password" → "Reset your password". */
function lastSentence(label: string): [lead: string, sentence: string] {
  const body = label.replace(/[\s\p{P}]+$/u, '');
  let cut = -1;
  for (let i = body.length - 1; i >= 0; i--) {
    const ch = body[i]!;
    if ('。！？'.includes(ch) || ('.!?'.includes(ch) && /\s/.test(body[i + 1] ?? ''))) {
      cut = i + 1;
      break;
    }
  }
  return cut === -1 ? ['', body.trim()] : [body.slice(0, cut), body.slice(cut).trim()];
}

/** The previous visible line before the line starting at `ls` (at most 200 chars of it), or ''. */
function previousLine(text: string, ls: number): string {
  const prev = previousLineStart(text, ls);
  return prev === -1 ? '' : text.slice(Math.max(prev, ls - 200), ls);
}

const HAS_WORD = /[\p{L}\p{N}]/u;

/** Text before `pos` on its line; the previous visible line instead when that holds no words. */
export function leadBefore(text: string, pos: number): string {
  const ls = lineStart(text, pos);
  const same = text.slice(Math.max(ls, pos - 200), pos);
  return HAS_WORD.test(same) ? same : previousLine(text, ls);
}

/** Candidates from plain-text URLs: the anchor is the sentence introducing the URL. */
export function textLinkCandidates(text: string, urls: UrlSpan[]): LinkCandidate[] {
  const out: LinkCandidate[] = [];
  for (const u of urls.slice(0, MAX_LINKS)) {
    const ls = lineStart(text, u.start);
    const same = text.slice(Math.max(ls, u.start - 200), u.start);
    // "Label ( URL )", "Label: URL" or a label line above "[URL]" / "<URL>".
    const onLine = HAS_WORD.test(same);
    const labelLineStart = onLine ? ls : previousLineStart(text, ls);
    const label = (onLine ? same : previousLine(text, ls)).replace(/[\s(<\[:：]+$/u, '');
    const [before, anchor] = lastSentence(label);
    const lead = HAS_WORD.test(before) || labelLineStart <= 0 ? before : previousLine(text, labelLineStart);
    out.push({ url: u.url, anchor, lead, wide: text.slice(Math.max(0, u.start - 300), u.start), extra: '' });
  }
  return out;
}
