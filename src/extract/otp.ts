// Finds the one-time code: 4–6 digits the message presents as a code, separators removed.
//
// Scoring. Every digit cluster of 4–6 digits (digits joined by one space, NBSP or hyphen, an en
// dash between 3-digit halves, or one digit per cell/span/line) that survives the hard filters
// below becomes a candidate, scored:
//   +6 / +5 / +3  a code word ("code", "Sicherheitscode", "código", "код", "验证码", "인증번호" …) ends
//                 ≤40 / ≤100 / ≤160 characters before it on its line; when the number opens its line
//                 the two previous lines count too (+5 / +4). Only +1 if another possible code sits
//                 in between, unlabelled: a keyword labels the nearest number after it.
//   +5 / +4       a code word follows within 40 / 60 characters ("8229 is your verification code")
//   +3            the number is alone on its line (a code box, a cell row, one digit per cell)
//   +2            it is visually emphasised in the HTML (bold, big, letter-spaced, monospace)
//   +2 / +1       the subject / the body names a code somewhere; +0.5 if it recurs in another part
//   -2            it looks like a year (1900–2099)
//   -3            a count noun follows ("1500 repos") and no code word sits right before it
// Hard filters (rejected outright): a number label on the same line nearer than any code word
// (order, invoice, booking, ticket, card ending, ZIP, phone, "Kundennummer", "注文番号" …) or right
// after it, except a label in the purpose phrase of a code word ("code for the patient portal is
// …"); digits in URLs or e-mail addresses; decimals, times, dates, IPs and versions (a `.`, `,`,
// `:` or `/` joining more digits); currency or `%`/unit next to it; `#`, `+`, `№`, `©` before it;
// letters glued to it (except a letter prefix like "G-123456"); month names around a year; a
// meeting named on its line or on the line above when that line asks for no code of the reader's
// own (meeting passcodes; a passcode called one-time is the reader's); a promotion ("use code 2468
// for 15% off"); "22767 Hamburg" postal shapes; clusters whose digit total is not 4–6 (phone
// numbers, IBANs, meeting IDs, 12-digit item numbers).
// The best candidate scoring at least 5 is the code; ties go to the earliest. All work is bounded:
// at most MAX_CANDIDATES per part and fixed-size windows around each one.
import { CODE_WORD, ENTER, type Hit, MEETING, NUMBER_LABEL, otpKeywords } from './keywords.js';
import { ACTION, CLICK, linkKeywords, SIGN_IN, voided } from './link-keywords.js';
import { type Candidate, findCandidates } from './otp-candidates.js';
import { lineEnd, lineStart, nextLineEnd, previousLineStart } from './text-prep.js';

export interface OtpPart {
  /** Cleaned text; URLs and e-mail addresses already masked. */
  text: string;
  /** Flattened sorted [start, end) pairs of emphasised text (HTML only). */
  emphasis: number[];
}

export interface OtpPick {
  otp: string | null;
  reason: string;
}

interface Scored {
  score: number;
  why: string;
}

/**
 * Words for a secret every attendee shares: in a meeting invitation, a number they label is the
 * meeting's passcode or PIN, however far from the word "meeting" it stands.
 */
const SECRET_WORDS = 'pass|pin|kennwort|kenncode|mot de passe|contraseña|senha|пароль|パス|密码|密碼|비밀번호|암호|access|zugang|toegang|acceso|acesso|accès|доступ|sandi|lösen|jelsz|heslo|hasło|dostęp|wachtwoord|salasana|parol|şifre';
const SHARED_SECRET = new RegExp(SECRET_WORDS, 'i');
const SECRET_START = new RegExp(`^(?:${SECRET_WORDS})`, 'i');

/**
 * "One-time", "single-use" … right before a secret word or inside its phrase ("hasło jednorazowe"):
 * a passcode or password so qualified is the reader's own code, not a meeting's shared one ("your
 * one-time passcode to sign in").
 */
const ONE_TIME_WORDS = 'one[- ]?time|single[- ]use|einmal|jednoráz|egyszer|kertasalasana|usa e getta|à usage unique|de un solo uso|de uso único|monouso|одноразов|ワンタイム|一次性|일회용|jednorazow|tek kullanımlık|eenmalig|engångs|engangs|kertakäyttö|sekali pakai|một lần|unică';
const ONE_TIME = new RegExp(`(?:${ONE_TIME_WORDS})\\S*\\s*$`, 'i');
const ONE_TIME_IN = new RegExp(ONE_TIME_WORDS, 'i');

/** The whole word a hit ends ("Passcode" for the "code" that "*code" found in it). */
function wordAt(text: string, hit: Hit): string {
  let a = hit.start;
  while (a > 0 && hit.start - a < 24 && /\p{L}/u.test(text[a - 1]!)) a--;
  return text.slice(a, hit.end);
}

/** A code word that names a secret every meeting attendee shares, unless qualified as one-time. */
function sharedSecret(text: string, hit: Hit): boolean {
  // The word itself, or the one after it when that one starts with a secret word ("Kode Sandi",
  // "Code d'accès").
  const own = wordAt(text, hit);
  // "Código de acceso", "Code d'accès": a preposition may stand between the two.
  const next = /^[ '’](?:(?:de|da|do|di|du|del|d)[ '’])?(\p{L}+)/iu.exec(text.slice(hit.end, hit.end + 20))?.[1] ?? '';
  if (!(SHARED_SECRET.test(own) || SECRET_START.test(next)) || ONE_TIME_IN.test(own)) return false;
  const wordStart = hit.end - own.length;
  return !ONE_TIME.test(text.slice(Math.max(0, wordStart - 32), wordStart));
}

/**
 * A preposition that opens the purpose or the place of a code right after its code word ("code for
 * the patient portal", "code to approve this payment", "code pour votre espace adhérent", "code at
 * the prompt in your terminal", "code into the waiting terminal prompt").
 */
const PURPOSE = /^[^.!?。！？]{0,40}?(?:^|[^\p{L}])(?:for|to|in|into|at|on|pour|dans|à|au|aux|für|zum|zur|zu|im|in|para|en|al|ao|na|no|per|nel|nella|alla|voor|dla|do|för|til|için|для|в|на)(?:[^\p{L}]|$)/iu;
/** Labels that always name a number: a phone, a card, "ending in". */
const NUMBER_NOUN = /end|phone|tel|fax|card|karte|carte|tarjeta|number|nummer|numéro|número|numero|\bno\b|nr|zip|post|plz|cep|телефон|карт|номер|оканч|電話|电话|番号|号码|號碼|번호|전화/i;
/** Nothing but punctuation or "number" between a label and its number ("Order number: 4821"). */
const DIRECT_LABEL = /^(?:[\s:#.()\-–—]|number|num|no|nr|numéro|nummer|número|numero|номер)*$/i;

/**
 * Does a number label name this number? Not when it sits in the purpose phrase that opens right
 * after a code word in the same sentence, with words between the preposition and the label or
 * between the label and the number: "code for the patient portal is 4821", "one-time password for
 * this transaction is 4821" and "code to approve this payment: 4821" name the code; "code for
 * order 4821", "code for room: 4821" and "code sent to your phone ending in 4821" name the label's.
 */
function labelNames(text: string, label: Hit, code: Hit | undefined, numberStart: number): boolean {
  if (!code || code.end > label.start) return true;
  const between = text.slice(code.end, label.start);
  const purpose = PURPOSE.exec(between);
  if (!purpose || /[.!?。！？]\s/.test(between) || NUMBER_NOUN.test(text.slice(label.start, label.end))) return true;
  return !/\p{L}/u.test(between.slice(purpose[0].length)) && DIRECT_LABEL.test(text.slice(label.end, numberStart));
}

/** Where the winning number was read, for the reason. */
const PART_NAMES = ['the subject', 'the HTML body', 'the text body'];

const MIN_SCORE = 5;
const PUNCT_ONLY = /^[\s\p{P}\p{S}]*$/u;
const CODE_PREFIX = /^\s*[A-Z]{1,4}[-\u2010\u2011]$/;
const POSTAL_CITY = /^,? ?(?:г\.|[A-ZÄÖÜÀ-ÞА-ЯЁ][a-zäöüßà-ÿа-яё]{2,}(?:[ ,\n]|$))/;
/** What follows a promotion code in its sentence ("at checkout" alone does not: payment codes say it too). */
export const PROMOTION = /% off|\d ?% |discount|off your (?:next |first )?(?:order|purchase)|free (?:shipping|delivery)|promo|coupon|rabatt|réduction|descuento|desconto|sconto|korting|скидк|frakt|versandkostenfrei|livraison offerte|envío gratis|frete grátis|gratis verzending/i;
/** "482913 Valid for 10 minutes" (a code box's cell, then its expiry): not a postal code's city. */
const VALIDITY = /^,? ?(?:valid|expires?|expiring|gültig|läuft|valable|expire|válido|valido|vence|scade|geldig|verloopt|ważny|действ)/i;
const COUNT_NOUN = /^ ([a-zà-ÿа-яё]{3,})/;
/** Words that may follow a code in a sentence ("482913 is your code", "enter 482913 to verify"). */
const GLUE = new Set(
  ('is was are will to as in into on onto at for from with and or if when then within before after below here now expires expire valid please ' +
    'ist sind und oder um zum zur als bitte läuft gültig est et ou pour dans avant valable es y o para en antes ' +
    'expira válido é e em и или для в до действует').split(' '),
);
function inEmphasis(emphasis: number[], pos: number): boolean {
  let lo = 0;
  let hi = emphasis.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (pos < emphasis[mid * 2]!) hi = mid - 1;
    else if (pos >= emphasis[mid * 2 + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * True when text[from, to) holds another number that could itself be a code and that no label
 * owns: the keyword before it labels that number, not ours. Numbers that cannot be codes (an
 * IBAN, an amount) do not count, nor do labelled ones ("PIN for card ending 4821 is 7734").
 */
function numberBetween(text: string, from: number, to: number, hits: Hit[]): boolean {
  if (to - from < 4) return false;
  for (const other of findCandidates(text.slice(from, to))) {
    const at = from + other.start;
    if (!hits.some((h) => h.kind === NUMBER_LABEL && h.end <= at && at - h.end <= 15)) return true;
  }
  return false;
}

/** Any digit between a label and our number means the label names that other number. */
const digitBetween = (text: string, from: number, to: number): boolean => /\d/.test(text.slice(from, to));

const last = (hits: Hit[], kind: number): Hit | undefined => {
  for (let i = hits.length - 1; i >= 0; i--) if (hits[i]!.kind === kind) return hits[i];
  return undefined;
};
const first = (hits: Hit[], kind: number): Hit | undefined => hits.find((h) => h.kind === kind);
const has = (hits: Hit[], kind: number): boolean => hits.some((h) => h.kind === kind);

/** Score one candidate in its part; null when a hard filter rejects it. */
function scoreCandidate(part: OtpPart, c: Candidate, meetingDoc: boolean): Scored | null {
  const { text } = part;
  const ls = lineStart(text, c.start);
  const le = lineEnd(text, c.end);
  const from = Math.max(ls, c.start - 160);
  // A short capital prefix ("FL-508231" alone on its line) still starts the line with the code.
  const atLineStart = from === ls && (PUNCT_ONLY.test(text.slice(ls, c.start)) || CODE_PREFIX.test(text.slice(ls, c.start)));
  const to = Math.min(le, c.end + 60);
  const atLineEnd = to === le && PUNCT_ONLY.test(text.slice(c.end, le));
  let score = 0;

  // Before: nearest code word vs nearest number label on the same line.
  const same = otpKeywords.find(text, from, c.start);
  const code = last(same, CODE_WORD);
  // Meeting credentials: a number on, or right below, a line that names a meeting is its passcode,
  // unless a verification code word labels it nearer ("… your meeting. Verification code: 482913");
  // in a meeting invitation a passcode or PIN is one wherever it stands.
  const secret = code !== undefined && sharedSecret(text, code);
  if (meetingDoc && secret) return null;
  const meeting = last(same, MEETING);
  if (meeting && (!code || secret || meeting.start > code.start)) return null;
  const prevStart = previousLineStart(text, ls);
  if ((!code || secret) && prevStart !== -1) {
    // A meeting named on the line above: its passcode, unless that line asks for a code of the
    // reader's own ("Enter this code to verify your email and schedule your first meeting:").
    const above = otpKeywords.find(text, Math.max(prevStart, ls - 160), ls);
    if (has(above, MEETING) && !above.some((h) => h.kind === CODE_WORD && !sharedSecret(text, h))) return null;
  }
  const label = last(same, NUMBER_LABEL);
  if (label && c.start - label.end <= 30 && (!code || label.end > code.end) && !digitBetween(text, label.end, c.start) && labelNames(text, label, code, c.start)) return null;
  let before = 0;
  let why = '';
  if (code) {
    const d = c.start - code.end;
    before = numberBetween(text, code.end, c.start, same) ? 1 : d <= 40 ? 6 : d <= 100 ? 5 : 3;
    why = `labelled by "${text.slice(code.start, code.end)}" before it`;
  } else if (atLineStart && ls > 0) {
    // The number opens its line: the label may sit on one of the two lines above ("Your code:\n482913").
    let lineFrom = ls;
    for (let back = 0; back < 2 && before === 0; back++) {
      const prev = previousLineStart(text, lineFrom);
      if (prev === -1) break;
      const hits = otpKeywords.find(text, Math.max(prev, lineFrom - 160), lineFrom);
      const hit = last(hits, CODE_WORD);
      const lab = last(hits, NUMBER_LABEL);
      // "Order number:\n482913", "Your order number is:\n482913": a label at the end of the line
      // above names the number below it. After a code word on that line, only a label that closes
      // it does: in "Digite este código no app:" or "Enter this code when the terminal prompts you:"
      // the label word is part of a sentence about the code.
      const labelled = lab !== undefined && (!hit || lab.end > hit.end) && labelNames(text, lab, hit, c.start);
      const closesLine = labelled && (hit ? DIRECT_LABEL.test(text.slice(lab!.end, lineFrom)) : lineFrom - lab!.end <= 30 && !digitBetween(text, lab!.end, lineFrom));
      if (back === 0 && closesLine) return null;
      if (meetingDoc && hit && sharedSecret(text, hit)) return null;
      if (hit && !labelled) {
        before = numberBetween(text, hit.end, c.start, hits) ? 1 : back === 0 ? 5 : 4;
        why = `labelled by "${text.slice(hit.start, hit.end)}" on the line above`;
      }
      lineFrom = prev;
    }
  }

  // After: up to the end of the sentence for labels; a code word may sit on the next line when
  // the number stands alone ("118389\nVerification codes expire …").
  const afterEnd = atLineStart && atLineEnd ? Math.max(to, nextLineEnd(text, c.end, 120)) : to;
  const afterHits = otpKeywords.find(text, c.end, Math.min(afterEnd, c.end + 120));
  // A label right after the number ("2025 Hamilton Avenue", "… is your order number") rejects it,
  // unless a code word just before already claims it; the label must sit in the same sentence.
  const sentence = /[.!?;。！？](?:\s|$)|\n/.exec(text.slice(c.end, to));
  const sentenceEnd = c.end + (sentence ? sentence.index : to - c.end);
  const labelAfter = first(afterHits, NUMBER_LABEL);
  const codeAfter = first(afterHits, CODE_WORD);
  if (before < 6 && labelAfter && labelAfter.start - c.end <= 20 && labelAfter.start < sentenceEnd && (!codeAfter || codeAfter.start > labelAfter.start)) return null;
  // "Use code 7741 at checkout for 20% off": a promotion, unless the sentence is about signing in
  // or verifying.
  if (PROMOTION.test(text.slice(c.end, sentenceEnd)) && !linkKeywords.find(text, from, sentenceEnd).some((h) => h.kind === ACTION || h.kind === SIGN_IN)) return null;
  // "You asked for a new code, so 604211 no longer works": a code the mail says is void.
  if (voided(text.slice(c.end, Math.min(sentenceEnd, c.end + 60)))) return null;
  let after = 0;
  if (codeAfter && !numberBetween(text, c.end, codeAfter.start, afterHits)) {
    after = codeAfter.start - c.end <= 40 ? 5 : 4;
    if (!why) why = `followed by "${text.slice(codeAfter.start, codeAfter.end)}"`;
  }
  // "Use 739205 to sign in", "Enter 482139 on the sign-in page": the reader is told to type it in,
  // for a sign-in or verification purpose stated right after.
  if (before === 0 && after === 0) {
    const enter = last(same, ENTER);
    if (enter && c.start - enter.end <= 12 && PUNCT_ONLY.test(text.slice(enter.end, c.start))) {
      before = 3;
      const purpose = linkKeywords.find(text, c.end, Math.min(sentenceEnd + 1, c.end + 80));
      // "… to sign in", "… to verify", or "… or click <link>" (the code-or-link pattern).
      if (purpose.some((h) => h.kind === ACTION || h.kind === SIGN_IN || h.kind === CLICK)) before += 2;
      why = `to be entered ("${text.slice(enter.start, enter.end)} …")`;
    }
  }

  // Shapes of other numbers, unless a code word sits right before: "22767 Hamburg" / "125009, г.
  // Москва" (a postal code before a city) and "1500 repos" (a count before its noun).
  const tail = text.slice(c.end, c.end + 40);
  if (before < 6 && after === 0 && POSTAL_CITY.test(tail) && !VALIDITY.test(tail)) return null;
  const noun = COUNT_NOUN.exec(tail);
  // A code word right after the next word ("482913 este codul tău", "… adalah kode verifikasi")
  // makes that word a verb, not a noun counted.
  const verb = noun !== null && codeAfter !== undefined && codeAfter.start - (c.end + 1 + noun[1]!.length) <= 2;
  if (noun && !GLUE.has(noun[1]!.toLowerCase()) && !(code && c.start - code.end <= 12) && !verb) score -= 3;

  score += Math.max(before, after) + (before > 0 && after > 0 ? 1 : 0);
  if (atLineStart && atLineEnd) score += 3;
  if (inEmphasis(part.emphasis, c.start)) score += 2;
  if (/^(?:19|20)\d\d$/.test(c.value)) score -= 2;
  if (!why) why = atLineStart && atLineEnd ? 'stands alone on its line' : 'emphasised';
  return { score, why };
}

/**
 * Pick the code from the subject and the body parts. `docBonus` is +2 when the subject names a
 * code, +1 when only the body does; `meetingDoc` when the mail is a meeting invitation.
 */
export function pickOtp(parts: OtpPart[], docBonus: number, meetingDoc = false): OtpPick {
  const best = new Map<string, { score: number; order: number; parts: Set<number>; why: string; part: number }>();
  let order = 0;
  let seen = 0;
  parts.forEach((part, p) => {
    for (const c of findCandidates(part.text)) {
      seen++;
      const s = scoreCandidate(part, c, meetingDoc);
      order++;
      if (s === null) continue;
      const prev = best.get(c.value);
      if (!prev) best.set(c.value, { score: s.score, order, parts: new Set([p]), why: s.why, part: p });
      else {
        prev.parts.add(p);
        if (s.score > prev.score) Object.assign(prev, { score: s.score, why: s.why, part: p });
      }
    }
  });
  let pick: string | null = null;
  let pickScore = -Infinity;
  let pickOrder = Infinity;
  let reason = '';
  for (const [value, v] of best) {
    const s = v.score + docBonus + (v.parts.size > 1 ? 0.5 : 0);
    if (s < MIN_SCORE) continue;
    if (s > pickScore || (s === pickScore && v.order < pickOrder)) {
      pick = value;
      pickScore = s;
      pickOrder = v.order;
      reason = `${v.score === 0 ? 'the code the subject announces' : v.why} in ${PART_NAMES[v.part] ?? 'the body'}` +
        (docBonus === 2 ? '; the subject names a code' : '');
    }
  }
  if (pick !== null) return { otp: pick, reason };
  if (seen === 0) return { otp: null, reason: 'no 4-6 digit number outside links and addresses' };
  const numbers = seen === 1 ? 'one number of 4-6 digits' : `${seen} numbers of 4-6 digits`;
  return {
    otp: null,
    reason: best.size === 0
      ? `${numbers}, none a code: order, account, phone, postal, date, price, meeting or other labelled numbers`
      : `${numbers}, none presented as a code (no code word, entry instruction or code layout near it)`,
  };
}
