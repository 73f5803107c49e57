// What a link's URL says on its own: the act its path spells, another kind of link, an opaque
// token, the host. Click trackers are read through: a redirect that carries its target URL
// (SES-style `/L0/https:%2F%2F…`, `?url=https%3A%2F%2F…`) is judged by that target, and one
// that hides it (Campaign-Monitor-style `/t/i-l-…-l-j/`, HubSpot-style `/Ctc/…`) says nothing at all,
// so its words alone decide.
import { URL_ACTION, URL_OTHER, IDP_ACTION } from './link-keywords.js';

const TOKEN = /[A-Za-z0-9_-]{10,}/g;
/** Campaign parameters ("utm_campaign=welcome_2025") look like tokens and never are. */
const UTM = /[?&]utm_[a-z]+=[^&#]*/gi;

/**
 * A redirect's target URL, percent-encoded: a whole path segment (SES-style `/L0/https:%2F%2F…`),
 * or the `url`/`u`/`q`/`target`… parameter of a redirector whose own path says nothing else
 * (`/?url=https%3A%2F%2F…`, `/redirect?u=…`). A verification URL's own continuation parameter
 * (`…/verify?token=…&redirect_to=https%3A%2F%2F…`) is not a target: the link is the verification.
 */
const PATH_TARGET = /^\/(?:[^?#]*\/)?(https?(?::|%3a)%2f%2f[^/?&#\s]+)/i;
const QUERY_TARGET = /^\/?(?:(?:redirect|redir|url|click|r|l|link|links|out|away|track|goto|go|safelinks?)\/?)?\?(?:[^#]*&)?(?:url|u|q|target|dest|destination|link|href)=(https?(?::|%3a)%2f%2f[^&#\s]+)/i;

/** Opaque click-tracker paths: the target is stored at the tracker, not in the URL. */
const OPAQUE_TRACKER = /^\/(?:t\/[a-z]-[a-z]-[a-z0-9]{4,}-[a-z]-[a-z0-9]{1,3}\/?$|ctc\/|ls\/click\b|track\/click\b|e\/c\/|c\/[a-z0-9_-]{20,}|u\/click\b|tn\.jsp\b|wf\/click\b)/i;

/**
 * The URL that decides what a link is: the target a redirecting click tracker carries, decoded,
 * or the URL itself.
 */
export function targetOf(url: string): string {
  const path = url.replace(/^[a-z]+:\/\/[^/?#]*/i, '');
  const m = PATH_TARGET.exec(path) ?? QUERY_TARGET.exec(path);
  if (!m) return url;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return url;
  }
}

/** A click tracker that hides its target: its URL says nothing about what the link is. */
export function opaqueTracker(url: string): boolean {
  const { rest } = urlParts(url);
  return OPAQUE_TRACKER.test(rest);
}

/**
 * Whether the URL carries an opaque token in its path, query or fragment: 10+ characters that
 * look random (letters and digits alternating, or long mixed-case runs with digits), or 12+
 * digits. Verification, magic and reset links always do; a plain "Log in" or "Dashboard" link in
 * a welcome mail does not, so it is never returned. utm_* values ("welcome_2025") are ignored.
 */
export function hasToken(url: string): boolean {
  // Percent-escapes split words, not tokens ("%2Fdashboard" is no token).
  const q = targetOf(url).replace(/^[a-z]+:\/\/[^/?#]*/i, '').replace(UTM, '').replace(/%[0-9A-Fa-f]{2}/g, '/');
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

/**
 * A short token after the action in the URL: "/confirm/abc123XYZ", "/verify?k=9f3a2b". Letters
 * and digits mixed, 6+ characters, in a path segment or query value following the action stem.
 */
export function shortTokenAfterAction(rest: string): boolean {
  const m = URL_ACTION.exec(rest);
  if (!m) return false;
  for (const t of rest.slice(m.index + m[0].length).replace(UTM, '').replace(/%[0-9a-f]{2}/g, '/').matchAll(/[A-Za-z0-9]{6,}/g)) {
    // Random-looking: letters and digits alternate at least twice ("abc123xyz", "4f9a2c"), which
    // words with a year ("verified_2025") or an encoded slash ("%2Fdashboard") do not.
    if ((t[0].match(/[A-Za-z](?=\d)|\d(?=[A-Za-z])/g)?.length ?? 0) >= 2) return true;
  }
  return false;
}

/**
 * The URL (path and query, lowercased) names another kind of link. A campaign or source parameter
 * ("…/verify-email?token=…&src=support") only says where the link was sent from: it is forgiven
 * when the rest of the URL spells the act, and counts otherwise ("…/r/Hy61?utm_content=contact").
 */
const TRACKING = /[?&](?:utm_[a-z]+|src|source|ref|referrer|from|via|channel|medium|campaign|cid)=[^&#]*/gi;
export function urlNamesOther(rest: string): boolean {
  const bare = rest.replace(TRACKING, '');
  return URL_OTHER.test(bare) || (URL_OTHER.test(rest) && !IDP_ACTION.test(bare) && !URL_ACTION.test(bare));
}

function hostOf(url: string): string {
  const m = /^[a-z]+:\/\/(?:[^@/?#]*@)?([^:/?#]*)/i.exec(url);
  return (m?.[1] ?? '').toLowerCase();
}

/** The host, and the rest (path, query, fragment) lowercased, as the URL-shape tests read them. */
function urlParts(url: string): { host: string; rest: string } {
  const host = hostOf(url);
  return { host, rest: url.slice(url.indexOf(host) + host.length).toLowerCase() };
}

/** The path of a URL's rest (targetParts), without its query and fragment. */
export const pathOf = (rest: string): string => rest.split(/[?#]/, 1)[0]!;

/** The host and the rest of the URL that decides what a link is (a tracker's target, when it carries one). */
export function targetParts(url: string): { host: string; rest: string } {
  return urlParts(targetOf(url));
}
