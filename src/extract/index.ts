// Public entry of the extraction module: finds the one-time code and the verification link in a
// decoded message (subject, text/plain, text/html). Pure and synchronous; no runtime dependencies.
import { htmlToText } from './html-to-text.js';
import { CODE_WORD, MEETING, otpKeywords } from './keywords.js';
import { isBulk, type LinkCandidate, mailWords, type MailSignals, MAX_LINKS, pickLink, refusedByWords } from './link.js';
import { isWebUrl, leadBefore, textLinkCandidates, trailAfter } from './link-candidates.js';
import { type OtpPart, pickOtp, PROMOTION } from './otp.js';
import { cleanText, findUrls, foldDigits, maskUrlsAndEmails, SUBJECT_CAP, type UrlSpan } from './text-prep.js';

export interface ExtractInput {
  subject?: string | null;
  text?: string | null;
  html?: string | null;
}

/** Why each value was picked, or why it is null: short, human-readable, for the full message view. */
export interface ExtractionReasons {
  otp_reason: string;
  link_reason: string;
}

export interface Extraction {
  /** 4–6 ASCII digits, display separators removed; null when the mail delivers no code. */
  otp: string | null;
  /** The URL to follow to verify/confirm/activate/sign in/reset, exactly as in the mail; or null. */
  verification_link: string | null;
}

/** How far into the body we look for "this mail is about a code" (the document-level signal). */
const DOC_SCAN = 64 * 1024;
const ALL_URLS = 100_000;

/** The body with every link's own words cut out, so only the surrounding text can ask for the act. */
function outsideLinks(text: string, spans: Array<[number, number]>): string {
  const parts: string[] = [];
  let last = 0;
  for (const [a, b] of spans) {
    if (a >= DOC_SCAN) break;
    if (a > last) parts.push(text.slice(last, a));
    last = Math.max(last, b);
  }
  parts.push(text.slice(last, DOC_SCAN));
  return parts.join(' ');
}

/**
 * Plain text minus the lines that hold URLs (their labels are the links' own words). The URLs are
 * in document order, so the line ends are found in one forward pass: searching from each URL
 * again was quadratic in a long line of URLs (issue 33).
 */
function linesWithoutUrls(text: string, urls: UrlSpan[]): string {
  const spans: Array<[number, number]> = [];
  let lineStart = 0;
  // The first line break not yet passed, and the first at or after the last URL's end (-1: none).
  let nl = text.indexOf('\n');
  let nextBreak = -2;
  for (const u of urls) {
    while (nl >= 0 && nl < u.start) {
      lineStart = nl + 1;
      nl = text.indexOf('\n', nl + 1);
    }
    if (lineStart >= DOC_SCAN) break;
    if (nextBreak !== -1 && nextBreak < u.end) nextBreak = text.indexOf('\n', u.end);
    spans.push([lineStart, nextBreak === -1 ? text.length : nextBreak]);
  }
  return outsideLinks(text, spans);
}

/**
 * Extract the one-time code and verification link, with the reason for each. HTML is read by our
 * own reader (entities decoded, emphasis, buttons and anchors kept); the text part is read too,
 * since it may hold the only copy. Each part is examined up to PART_CAP characters, so the cost is
 * bounded whatever the input size.
 */
export function explain(input: ExtractInput): Extraction & ExtractionReasons {
  const subject = cleanText(input.subject ?? '', SUBJECT_CAP).replace(/\n/g, ' ');
  const text = input.text ? cleanText(input.text) : '';
  const reading = input.html ? htmlToText(input.html) : null;
  const htmlText = reading ? foldDigits(reading.text) : '';

  const textUrls = findUrls(text, ALL_URLS);
  const htmlUrls = findUrls(htmlText, ALL_URLS);
  const parts: OtpPart[] = [
    { text: maskUrlsAndEmails(subject, findUrls(subject)), emphasis: [] },
    { text: maskUrlsAndEmails(htmlText, htmlUrls), emphasis: reading?.emphasis ?? [] },
    { text: maskUrlsAndEmails(text, textUrls), emphasis: [] },
  ];
  // One scan per part for the document-level signals: does it name a code, a meeting?
  const kinds = (s: string): Set<number> => new Set(otpKeywords.find(s.length > DOC_SCAN ? s.slice(0, DOC_SCAN) : s).map((h) => h.kind));
  const [inSubject, inHtml, inText] = [kinds(subject), kinds(htmlText), kinds(text)];
  const subjectNamesCode = inSubject.has(CODE_WORD);
  const docBonus = subjectNamesCode ? 2 : inHtml.has(CODE_WORD) || inText.has(CODE_WORD) ? 1 : 0;
  const picked = pickOtp(parts, docBonus, inSubject.has(MEETING) || inHtml.has(MEETING) || inText.has(MEETING));

  const body = reading
    ? outsideLinks(htmlText, reading.links.map((l) => [l.start, l.end]))
    : linesWithoutUrls(text, textUrls);
  const htmlCandidates: LinkCandidate[] = [];
  if (reading) {
    const links = reading.links;
    for (let i = 0; i < links.length; i++) {
      const l = links[i]!;
      if (htmlCandidates.length >= MAX_LINKS) break;
      if (!isWebUrl(l.href)) continue;
      const anchor = htmlText.slice(l.start, l.end).trim() || l.alt.trim();
      const { lead, leadHoldsLink } = leadBefore(htmlText, l.start, links[i - 1]?.end);
      htmlCandidates.push({
        url: l.href,
        anchor,
        lead,
        leadHoldsLink,
        wide: htmlText.slice(Math.max(0, l.start - 300), l.start),
        // Up to the next link: "Yes, it was me" beside "No, it wasn't me" is not followed by a negation.
        trail: trailAfter(htmlText, l.end, links[i + 1]?.start),
        extra: l.extra,
        button: l.button,
      });
    }
  }
  const textCandidates = text ? textLinkCandidates(text, textUrls) : [];
  const bulk = isBulk(htmlCandidates) || isBulk(textCandidates);
  const words = mailWords(subject, subjectNamesCode, body);
  // Bulk mail whose subject sells a discount ("your code for 20% off") and that asks for no
  // verification or sign-in anywhere delivers a promotion code, however it lays the code out.
  const sells = picked.otp !== null && bulk && PROMOTION.test(subject) && !words.subjectAsks && !words.bodyAsks && !words.signsIn;
  const code = sells ? { otp: null, reason: `${picked.otp} is a promotion code: the subject offers a discount in bulk mail that asks for no verification` } : picked;
  const mail: MailSignals = { bulk, hasCode: code.otp !== null, code: code.otp, ...words };
  let link = reading ? pickLink(htmlCandidates, mail) : { url: null as string | null, reason: 'the mail has no web links' };
  if (link.url === null && text) {
    // The text part may hold the only copy of a link; a link the HTML shows and rejected (a safety
    // exit, a footer link) by its own words stays rejected whatever the plain-text layout around it.
    const fromText = pickLink(textCandidates, mail);
    const refusedInHtml = fromText.url !== null && htmlCandidates.some((c) => c.url === fromText.url && refusedByWords(c));
    if (!refusedInHtml && (fromText.url !== null || htmlCandidates.length === 0)) link = fromText;
  }
  if (link.url === null && reading) {
    // An HTML-only mail may print its link as text outside any anchor ("open the following link
    // in your browser: https://…"): read those URLs as a text part's are.
    const printed = outsideSpans(htmlUrls, reading.links);
    const fromPrinted = printed.length > 0 ? pickLink(textLinkCandidates(htmlText, printed), mail) : null;
    if (fromPrinted?.url && !htmlCandidates.some((c) => c.url === fromPrinted.url && refusedByWords(c))) link = fromPrinted;
  }
  return { otp: code.otp, verification_link: link.url, otp_reason: code.reason, link_reason: link.reason };
}

/** The URLs (at most MAX_LINKS) that overlap no link span; both lists are in document order. */
function outsideSpans(urls: UrlSpan[], spans: ReadonlyArray<{ start: number; end: number }>): UrlSpan[] {
  const out: UrlSpan[] = [];
  let j = 0;
  for (const u of urls) {
    while (j < spans.length && spans[j]!.end <= u.start) j++;
    if (j < spans.length && spans[j]!.start < u.end) continue;
    out.push(u);
    if (out.length >= MAX_LINKS) break;
  }
  return out;
}

/** The two values alone (the summary fields of a message). */
export function extract(input: ExtractInput): Extraction {
  const { otp, verification_link } = explain(input);
  return { otp, verification_link };
}
