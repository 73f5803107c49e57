// Picks the verification link: the one URL the reader is asked to follow to verify, confirm,
// activate, sign in or reset. Every link gets a small score from what it says, what precedes it,
// the shape of its URL and its role in the layout.
//
// Per candidate (anchor = the link text or image alt; for a plain-text URL, the sentence
// introducing it: "Confirm your email ( URL )", "Activate your account:\n<URL>"):
//   reject  the anchor or its lead-in is a "wasn't you?" sentence (a safety exit: "Didn't try to
//           sign in? Reset your password"), unless an "ignore this email" follows the negation
//   +5  the anchor asks for the act ("Verify email", "Konto aktivieren", "本登録を完了する"); sign-in
//       words ("Log in") count only in a mail about signing in: its subject asks for it or names a
//       code, the mail delivers a code, says its link expires or works once, or the URL is a
//       sign-in URL (magic links)
//   -6  the anchor names another kind of link (unsubscribe, privacy, help, deny, report, "secure
//       your account" …); this outranks an action word in the same anchor ("Cancel this sign-in")
//       unless the action leads and the other word only qualifies its object ("Verify store email")
//   ±3  the nearest keyword in the lead-in (same line, or the previous line when the link starts
//       its own line) asks for the act (+3) or names another kind of link (-3); +3 the rest of
//       the sentence after it, up to the next link, asks ("Click <here> to verify your email")
//   +1  an action word in the 300 characters before; +1 the subject asks; +1 "click/open this link"
//   +4  next to a code, "… or click the button below" offers the link as the code's other form
//   +2 / -3  the URL path or query spells the act (verify, bevestigen, reset, magic, token= …) /
//       another kind (unsubscribe, privacy, report, deny, lock); -6 social hosts; -4 logos
//   +5  (instead of +2) the URL is an identity provider's action link (…/__/auth/action?mode=…&
//       oobCode=…, confirmUser, /auth/v1/verify, action tokens): it needs no word next to it
//   +1  the URL carries an opaque token (or a short one after its action: "/confirm/abc123XYZ");
//       +2 it carries the very code the mail delivers ("/verify?code=4831"); +1 drawn as a button
// A link is returned when it scores at least 4; the act is asked for by the anchor, the lead-in,
// the URL or the "or click" offer; it carries a token (every verification, magic and reset link
// does; a plain login or dashboard link does not), the mail's code, or both an action anchor and
// an action URL; the act names what it acts on (address, account, subscription, password, a
// sign-in: "Confirm appointment" and "Activate offer" do not) unless the URL does; and, in bulk
// mail (unsubscribe or preference links), the mail itself asks for it (subject, text outside the
// links, or the URL): a "Confirm your seat" button in a newsletter is not a verification link.
// When no link passes on words, structure decides: in a mail that asks for the act (or says its
// link expires within hours or works once), delivers no code and is no bulk mail, the one tokenised
// call-to-action (or the one button among them) that is neither a
// footer, social, legal nor safety link is the verification link (languages the tables lack).
import { ACTION, ALLOW, ALTERNATIVE, CLICK, CODE_NOUN, EXPIRY, IDP_ACTION, IF, INVITATION, JOIN, LIST, linkKeywords, MEETING, NEGATION, NEUTRALIZER, OBJECT, OTHER, SIGN_IN, SOCIAL_HOST, TEAM, URL_ACTION, URL_JOIN, URL_LIST, URL_OBJECT, URL_SIGN_IN, voided } from './link-keywords.js';
import type { Hit } from './keywords.js';
import { hasToken, opaqueTracker, pathOf, shortTokenAfterAction, targetOf, targetParts, urlNamesOther } from './link-url.js';

/** A link as the scorer sees it, whichever part it came from. */
export interface LinkCandidate {
  url: string;
  /** What the link says: anchor text, image alt, or the sentence just before a plain-text URL. */
  anchor: string;
  /** Text leading up to the anchor on its line; the previous line when the line holds nothing else. */
  lead: string;
  /** Up to 300 characters before the anchor. */
  wide: string;
  /** The rest of the sentence after the link: "Open <URL> to confirm your account." */
  trail: string;
  /** Image src/class and title (logo detection). */
  extra: string;
  /** Drawn as a button (background, padding or border on the link or its cell). */
  button: boolean;
  /** In quoted text of a reply (a plain-text line that starts with ">"): an older mail's link. */
  quoted?: boolean;
  /** The lead-in is the line above, which holds another link: its negation is that link's. */
  leadHoldsLink?: boolean;
}

/** What the mail as a whole says, computed once per mail. */
export interface MailSignals {
  /** The subject asks to verify/confirm/activate/reset. */
  subjectAsks: boolean;
  /** The subject is about signing in or names a code. */
  subjectSignIn: boolean;
  /** The subject names what a verification acts on (address, account, subscription, password). */
  subjectObject: boolean;
  /** The body text outside the links asks for the act. */
  bodyAsks: boolean;
  /** The subject or the body outside the links speaks of signing in (a code word alone does not). */
  signsIn: boolean;
  /** The body says its link expires or works once: a one-time link, so "Log in" is a magic link. */
  expiring: boolean;
  /** Bulk mail (it has unsubscribe or preference links): its buttons need the mail's own words. */
  bulk: boolean;
  /** The mail delivers a one-time code: a sign-in or verify link next to it is its alternative. */
  hasCode: boolean;
  /** That code, when there is one: a link carrying it ("…/verify?code=4831") is its other form. */
  code: string | null;
  /** The mail invites the reader to an account, team or workspace: joining or accepting is the act. */
  invitation: boolean;
}

export interface LinkPick {
  url: string | null;
  reason: string;
}

const MIN_SCORE = 4;
/** More than any score spans: a quoted link ranks below every link of the mail's own words. */
const QUOTED_BELOW = 1000;
/** Links looked at per part: real mail has a few dozen; the rest of a hostile one is skipped. */
export const MAX_LINKS = 300;

function has(hits: Hit[], kind: number): boolean {
  return hits.some((h) => h.kind === kind);
}

/** Another kind of link: footer, legal, help, safety exit, or list management. */
const isOther = (kind: number): boolean => kind === OTHER || kind === LIST;
const names = (hits: Hit[]): boolean => hits.some((h) => isOther(h.kind));

/**
 * An anchor that names another kind of link: that outranks an action word in it ("Cancel this
 * sign-in", "Secure your account", "Confirm appointment"), unless the action leads and each other
 * word only qualifies what it acts on, named right after it ("Verify store email"); list words
 * ("Confirm unsubscribe from newsletter") always outrank it.
 */
const anchorNamesOther = (anchor: Hit[]): boolean => names(anchor) && !(anchor[0]?.kind === ACTION && anchor.every((o) => o.kind !== LIST && (o.kind !== OTHER || anchor.some((h) => h.kind === OBJECT && h.start >= o.end && h.start - o.end <= 1))));

/**
 * Does the lead-in name the link by its own words, with the act right after, in one sentence
 * ("Click Get started to choose a password", "Tap «Weiter», um dein Passwort festzulegen")?
 */
function namedForAct(c: LinkCandidate, leadHits: Hit[], asksIn: (hits: Hit[]) => boolean): boolean {
  const name = c.anchor.trim().toLowerCase();
  if (name.length < 3 || name.length > 40) return false;
  const at = c.lead.toLowerCase().lastIndexOf(name);
  if (at < 0) return false;
  const after = at + name.length;
  const end = c.lead.slice(after).search(/[.!?。！？]/u);
  const until = end < 0 ? c.lead.length : after + end;
  return asksIn(leadHits.filter((h) => h.start >= after && h.end <= until));
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

const SENTENCE_END = /[.!?。！？؟](?:\s|$)|\n/g;

/**
 * A negation in the lead-in opens a safety exit only in its conditional or question form ("If this
 * wasn't you, …", "Didn't request this?", "Not you?"); "… because we did not recognize your
 * device. To finish, click …" is a statement and leaves the link alone.
 */
function leadNegated(lead: string, hits: Hit[]): boolean {
  let neg: Hit | undefined;
  for (const h of hits) {
    if (h.kind === NEGATION) neg = h;
    else if (h.kind === NEUTRALIZER) neg = undefined;
  }
  if (!neg) return false;
  let from = 0;
  let to = lead.length;
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(lead); m; m = SENTENCE_END.exec(lead)) {
    const end = m.index + m[0].length;
    if (end <= neg.start) from = end;
    else {
      to = end;
      break;
    }
  }
  const sentence = lead.slice(from, to);
  if (/[?？؟]/.test(sentence) || !/[\p{L}\p{N}]/u.test(lead.slice(from, neg.start))) return true;
  // A finished sentence that sends the reader somewhere of its own ("If you did not request this,
  // contact an administrator at it@corp.example.") is not this link's lead-in.
  if (/[.。]\s*$/.test(sentence) && hits.some((h) => isOther(h.kind) && h.start > neg.end && h.end <= to) && OWN_TARGET.test(sentence.slice(neg.end - from))) return false;
  // A negation with a conditional ending is its own "if" (Korean "변경하지 않았다면", Turkish "siz
  // yapmadıysanız").
  return CONDITIONAL_NEGATION.test(lead.slice(neg.start, neg.end)) || hits.some((h) => h.kind === IF && h.start >= from && h.end <= to);
}

const CONDITIONAL_NEGATION = /(?:다면|라면|sanız|seniz)$/iu;

/** An address, URL or phone number (with its "+" or trunk "0"; not a date) of its own in a sentence. */
const OWN_TARGET = /[\w.+-]@[\w-]+\.|https?:\/\/|(?:\+|(?<!\d)0)\d[\d ()-]{6,}\d/;


/**
 * The account, address, subscription or password, a sign-in, or the code itself; an action phrase
 * of several words names its object itself ("new password", "сброс пароля", "it was me").
 */
const namesObject = (hits: Hit[]): boolean =>
  hits.some((h) => h.kind === OBJECT || h.kind === SIGN_IN || h.kind === CODE_NOUN || (h.kind === ACTION && h.phrase));

/**
 * Does the mail invite the reader to an account, team or workspace? Its subject or body says it is
 * an invitation and names such a place, and neither speaks of a meeting, call or event (whose
 * "Join" opens the meeting).
 */
function invitesReader(...texts: [text: string, hits: Hit[]][]): boolean {
  let invites = false;
  let place = false;
  for (const [text, hits] of texts) {
    for (const h of hits) {
      if (h.kind === MEETING) return false;
      invites ||= h.kind === INVITATION;
      // The account words are objects of verification too (OBJECT): "join the Ledgerly account".
      place ||= h.kind === TEAM || (h.kind === OBJECT && ACCOUNT_WORD.test(text.slice(h.start, h.end)));
    }
  }
  return invites && place;
}
const NOW = /^(?:now|agora|ahora|jetzt|maintenant|adesso|teraz|nyní|hemen|nyt|сейчас|зараз)$/iu;
const ACCOUNT_WORD = /account|konto|compte|cuenta|conta|аккаунт|учетн|учётн|アカウント|账户|帳戶|账号|계정/i;

/**
 * Does a Join or Accept join a place: alone ("Accept"), with a team or the invitation itself
 * ("Join team", "View invitation", "Dołącz do zespołu"), or with a name ("Join Northwind Design")?
 * Not "Accept offer", "Join channel" or "Rejoindre le salon": they join something else.
 */
function joinsPlace(anchor: string, hits: Hit[]): boolean {
  const join = hits.find((h) => h.kind === JOIN);
  if (!join) return false;
  if (has(hits, TEAM) || has(hits, INVITATION)) return true;
  // Short words ("the", "de", "à"), "now" ("Aderir agora") and capitalised ones (a name) only;
  // scripts without case pass.
  return anchor.slice(join.end).split(/[\s.!…]+/u).every((w) => w === '' || w.length <= 3 || NOW.test(w) || !/\p{Ll}/u.test(w[0]!));
}

/**
 * What the mail's own words say, its subject and its body outside the links (each matched once):
 * they ask for the act, name what it acts on or a sign-in, say the link expires, invite the reader.
 */
export function mailWords(subject: string, subjectNamesCode: boolean, body: string): Omit<MailSignals, 'bulk' | 'hasCode' | 'code'> {
  const inSubject = linkKeywords.find(subject);
  const inBody = linkKeywords.find(body);
  return {
    subjectAsks: has(inSubject, ACTION),
    subjectSignIn: has(inSubject, SIGN_IN) || subjectNamesCode,
    subjectObject: namesObject(inSubject),
    bodyAsks: has(inBody, ACTION),
    signsIn: has(inSubject, SIGN_IN) || has(inBody, SIGN_IN),
    // A one-time link lasts minutes or hours, or works once; "the export link expires in 7 days" is
    // a download's, not an access link's.
    expiring: inBody.some((h) => h.kind === EXPIRY && !DAYS_AFTER.test(body.slice(h.end, h.end + 30))),
    invitation: invitesReader([subject, inSubject], [body, inBody]),
  };
}
const DAYS_AFTER = /^\D{0,12}\d+\s*(?:days?|weeks?|months?|tage[n]?|wochen|jours?|semaines?|días?|dias|semanas?|giorni|settimane|dagen|weken|dni|tygodni|dagar|dage|dager|päivää|gün|дн|недел|日間|天|일)/i;

interface CandidateHits {
  anchor: Hit[];
  lead: Hit[];
  wide: Hit[];
  trail: Hit[];
}

/** Each candidate's texts are matched once, when a rule first looks at them. */
const hitCache = new WeakMap<LinkCandidate, CandidateHits>();
function hitsOf(c: LinkCandidate): CandidateHits {
  let h = hitCache.get(c);
  if (!h) {
    const memo: Partial<CandidateHits> = {};
    const field = (k: keyof CandidateHits) => ({ get: () => (memo[k] ??= linkKeywords.find(c[k])), enumerable: true });
    h = Object.defineProperties({} as CandidateHits, { anchor: field('anchor'), lead: field('lead'), wide: field('wide'), trail: field('trail') });
    hitCache.set(c, h);
  }
  return h;
}

interface Scored {
  score: number;
  why: string[];
}

type Verdict = Scored | { reject: 'safety' | 'weak' } ;

const quote = (s: string): string => `"${s.length > 40 ? `${s.slice(0, 39)}…` : s}"`;

/** Score one candidate. */
export function scoreLink(c: LinkCandidate, mail: MailSignals): Verdict {
  const hits = hitsOf(c);
  const { anchor: anchorHits, lead: leadHits, wide: wideHits, trail: trailHits } = hits;
  if (safetyExit(c, hits)) return { reject: 'safety' };
  // "(no longer works) <URL>", "<old link> (expired)": a link the mail says is void.
  if (voided(c.anchor) || voided(c.trail)) return { reject: 'weak' };

  // A click tracker that carries its target is judged by the target; one that hides it says nothing.
  const { host, rest } = targetParts(c.url);
  const opaque = opaqueTracker(c.url);
  const idp = IDP_ACTION.test(rest);
  // A URL that names another kind of link ("/account/deletion/cancel?token=…") spells no act with
  // its token.
  const urlOther = urlNamesOther(rest);
  const urlAsks = idp || (URL_ACTION.test(rest) && !urlOther);
  // "Sign in" asks for verification only in a mail about signing in: the subject, the code it
  // delivers or the URL must agree, so "Log in to view your statement" behind a click tracker is
  // not a magic link.
  const signInMail = mail.subjectAsks || mail.subjectSignIn || mail.hasCode || mail.expiring || (URL_SIGN_IN.test(rest) && !urlOther);
  const asksIn = (hits: Hit[]): boolean => has(hits, ACTION) || (signInMail && (has(hits, SIGN_IN) || has(hits, ALLOW)));
  // "Join Northwind Design" in a mail that invites the reader to a workspace.
  const anchorJoins = mail.invitation && joinsPlace(c.anchor, anchorHits);

  const why: string[] = [];
  // "Click Get started to choose a password": the sentence before names this very button and says
  // what it does, which outranks what its words alone would name.
  const named = namedForAct(c, leadHits, asksIn);
  const anchorAsks = asksIn(anchorHits) || anchorJoins || named;
  const anchorOther = !named && anchorNamesOther(anchorHits);
  let score = 0;
  if (anchorOther) score -= 6;
  else if (anchorAsks) {
    score += 5;
    why.push(named ? `the sentence before names ${quote(c.anchor)} as the way to do it` : `its text ${quote(c.anchor)} asks for it`);
  }

  // The nearest keyword before the anchor decides the lead-in's vote.
  let leadAsks = false;
  for (let i = leadHits.length - 1; i >= 0; i--) {
    const k = leadHits[i]!.kind;
    if (k === ACTION || ((k === SIGN_IN || k === ALLOW) && signInMail)) {
      leadAsks = true;
      score += 3;
      why.push('the sentence before it asks for it');
      break;
    }
    if (isOther(k)) {
      score -= 3;
      break;
    }
  }
  // "Click <here> to verify your email", "Open <URL> to confirm your account": the purpose follows.
  const trailAsks = !anchorAsks && !names(trailHits) && asksIn(trailHits);
  if (trailAsks) {
    score += 3;
    why.push('the words after it ask for it');
  }
  if (!leadAsks && has(wideHits, ACTION)) score += 1;
  if (mail.subjectAsks || mail.subjectSignIn) score += 1;
  const clickable = has(anchorHits, CLICK) || has(leadHits, CLICK);
  if (clickable) score += 1;
  // Next to a code, "… or click the button below" offers this link as the code's other form.
  const alternative = mail.hasCode && clickable && (has(anchorHits, ALTERNATIVE) || has(leadHits, ALTERNATIVE)) && !anchorOther && !names(leadHits);
  if (alternative) {
    score += 4;
    why.push('it is offered instead of the code ("or click")');
  }
  if (idp) {
    score += 5;
    why.push('its URL is an identity-provider action link');
  } else if (urlAsks) {
    score += 2;
    why.push('its URL spells the act');
  }
  // In an invitation, a Join or Accept whose URL path joins or accepts too ("/invite/accept?code=…";
  // the path only: `?invite=` in a query names a shared file as well).
  const joins = anchorJoins && !anchorOther && URL_JOIN.test(pathOf(rest));
  if (joins) {
    score += 2;
    why.push('it joins the workspace the mail invites to');
  }
  if (urlOther) score -= 3;
  if (SOCIAL_HOST.test(host)) score -= 6;
  if (/logo/.test(c.extra) || /logo/.test(c.anchor.toLowerCase())) score -= 4;
  const tokenised = hasToken(c.url);
  if (tokenised) {
    score += 1;
    why.push('it carries a one-time token');
  }
  // The link carries the very code the mail delivers: the code's clickable form.
  const carriesCode = mail.code !== null && urlAsks && new RegExp(`[=/]${mail.code}(?:[&#/]|$)`).test(rest);
  if (carriesCode) {
    score += 2;
    why.push('it carries the code the mail delivers');
  }
  if (c.button) score += 1;

  const asked = anchorAsks || leadAsks || trailAsks || urlAsks || alternative;
  // Without an opaque token, the anchor and the URL must both spell the act ("Confirm your email"
  // → /verify?token=ab12): a short token is still a verification link, a bare /login is not.
  const shortToken = !tokenised && urlAsks && shortTokenAfterAction(rest);
  if (shortToken) score += 1;
  // Behind a tracker that hides its target, the words are all there is: they must ask themselves.
  const evidenced = tokenised || idp || carriesCode || shortToken || (urlAsks && has(anchorHits, ACTION)) || joins || (opaque && (anchorAsks || leadAsks));
  // In bulk mail a button's own words are not enough: "Confirm your seat" in a newsletter. An
  // invitation to a team asks by itself ("… invited you to join Lanakila Outreach"), reminder
  // settings beside it or not.
  const mailAsks = !mail.bulk || mail.subjectAsks || mail.subjectSignIn || mail.bodyAsks || mail.hasCode || mail.invitation || urlAsks;
  if (!(asked && evidenced && mailAsks && score >= MIN_SCORE)) return { reject: 'weak' };
  // "Confirm appointment", "Activate offer": the act must name what it acts on, unless the URL
  // itself is an identity provider's action or carries the mail's code.
  // An invitation's Join names its object through the mail (invitesReader: a team, a workspace).
  if (!idp && !carriesCode && !anchorJoins && (opaque || !URL_OBJECT.test(rest)) && !aboutAccount(c, mail, anchorHits, leadHits)) return { reject: 'weak' };
  return { score, why };
}

/**
 * Mail also "confirms" appointments and seats and "activates" offers: the act must name what it
 * acts on (the address, the account, the subscription, a sign-in) in the subject, the anchor or
 * the text before it.
 */
function aboutAccount(c: LinkCandidate, mail: MailSignals, anchorHits: Hit[], leadHits: Hit[]): boolean {
  const hits = hitsOf(c);
  return mail.subjectObject || mail.hasCode || namesObject(anchorHits) || namesObject(leadHits) || namesObject(hits.wide) || namesObject(hits.trail);
}

/** The structural fallback: the one call to action in a mail that asks for the act. */
function soleCallToAction(candidates: LinkCandidate[], verdicts: Verdict[], mail: MailSignals): LinkCandidate | null {
  // A mail that delivers a code often has one "Open the app" button too: next to a code, a link
  // must be named by its words or its URL, never by its place alone.
  // A mail whose link "expires in 15 minutes" or "works once" offers access, whatever its words.
  if (mail.hasCode || !(mail.subjectAsks || mail.bodyAsks || mail.expiring)) return null;
  if (mail.bulk) return null;
  const ctas: LinkCandidate[] = [];
  const seen = new Set<string>();
  candidates.forEach((c, i) => {
    const v = verdicts[i]!;
    if ('reject' in v && v.reject === 'safety') return;
    const { host, rest } = targetParts(c.url);
    if (c.anchor.trim() === '' || !hasToken(c.url) || urlNamesOther(rest) || SOCIAL_HOST.test(host)) return;
    const hits = hitsOf(c);
    // Only other kinds of link before it refuse it: list words there ("you can change your email
    // preferences at any time") describe the list a double opt-in joins (bulk mail never gets here).
    if (/logo/.test(c.extra) || names(hits.anchor) || has(hits.lead, OTHER)) return;
    if (seen.has(c.url)) return;
    if (!mail.expiring && !URL_OBJECT.test(rest) && !aboutAccount(c, mail, hits.anchor, hits.lead)) return;
    seen.add(c.url);
    ctas.push(c);
  });
  if (ctas.length === 1) return ctas[0]!;
  const buttons = ctas.filter((c) => c.button);
  return buttons.length === 1 ? buttons[0]! : null;
}

/**
 * A link offered to someone who "didn't request this" is a safety exit, whatever it says: its
 * anchor, its lead-in (unless that line is another link's) or the words after it say so.
 */
function safetyExit(c: LinkCandidate, h: CandidateHits): boolean {
  return negated(h.anchor) || (!c.leadHoldsLink && leadNegated(c.lead, h.lead)) || negated(h.trail);
}

/** The link's own words refuse it: a safety exit or another kind of link ("Unsubscribe", "Not me"). */
export function refusedByWords(c: LinkCandidate): boolean {
  const h = hitsOf(c);
  return safetyExit(c, h) || anchorNamesOther(h.anchor);
}

/** Whether any link manages a mailing list (unsubscribe, preferences): the mark of bulk mail. */
export function isBulk(candidates: LinkCandidate[]): boolean {
  return candidates.slice(0, MAX_LINKS).some((c) => URL_LIST.test(targetOf(c.url).toLowerCase()) || has(hitsOf(c).anchor, LIST));
}

/** Best link among candidates (in mail order), with the reason for the pick or for null. */
export function pickLink(candidates: LinkCandidate[], mail: MailSignals): LinkPick {
  const list = candidates.slice(0, MAX_LINKS);
  const verdicts = list.map((c) => scoreLink(c, mail));
  let best = -1;
  let bestScore = -Infinity;
  verdicts.forEach((v, i) => {
    if (!('score' in v)) return;
    // A link of the mail's own words comes before one quoted from an older mail, whatever the scores.
    const score = list[i]!.quoted ? v.score - QUOTED_BELOW : v.score;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  if (best !== -1) {
    const v = verdicts[best] as Scored;
    return { url: list[best]!.url, reason: `asks to verify, confirm, sign in or reset: ${v.why.join('; ')}` };
  }
  const cta = soleCallToAction(list, verdicts, mail);
  if (cta) return { url: cta.url, reason: `the one tokenised call-to-action ${cta.button ? 'button ' : 'link '}${quote(cta.anchor)} in a mail that asks to verify, confirm or sign in` };
  if (list.length === 0) return { url: null, reason: 'the mail has no web links' };
  if (verdicts.some((v) => 'reject' in v && v.reject === 'safety')) {
    return { url: null, reason: 'the action links are safety exits ("wasn\'t you?"); no other link asks to verify, confirm, sign in or reset' };
  }
  return { url: null, reason: `none of its ${list.length} links asks to verify, confirm, sign in or reset (footer, legal, social, tracking or other links)` };
}

