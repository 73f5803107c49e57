// Public entry of the extraction module: finds the one-time code and the verification link in a
// decoded message (subject, text/plain, text/html). Pure and synchronous; no runtime dependencies.
import { htmlToText } from './html-to-text.js';
import { CODE_WORD, otpKeywords } from './keywords.js';
import { isWebUrl, leadBefore, type LinkCandidate, pickLink, subjectSignals, textLinkCandidates } from './link.js';
import { type OtpPart, pickOtp } from './otp.js';
import { cleanText, findUrls, foldDigits, maskUrlsAndEmails, SUBJECT_CAP } from './text-prep.js';

export interface ExtractInput {
  subject?: string | null;
  text?: string | null;
  html?: string | null;
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

/**
 * Extract the one-time code and verification link. HTML is read by our own reader (entities
 * decoded, emphasis and anchors kept); the text part is read too, since it may hold the only copy.
 * Each part is examined up to PART_CAP characters, so the cost is bounded whatever the input size.
 */
export function extract(input: ExtractInput): Extraction {
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
  const codeIn = (s: string): boolean => otpKeywords.has(s.length > DOC_SCAN ? s.slice(0, DOC_SCAN) : s, CODE_WORD);
  const docBonus = codeIn(subject) ? 2 : codeIn(htmlText) || codeIn(text) ? 1 : 0;
  const otp = pickOtp(parts, docBonus);

  const signals = subjectSignals(subject);
  let link: string | null = null;
  if (reading) {
    const candidates: LinkCandidate[] = [];
    for (const l of reading.links) {
      if (!isWebUrl(l.href)) continue;
      const anchor = htmlText.slice(l.start, l.end).trim() || l.alt.trim();
      candidates.push({
        url: l.href,
        anchor,
        lead: leadBefore(htmlText, l.start),
        wide: htmlText.slice(Math.max(0, l.start - 300), l.start),
        extra: l.extra,
      });
    }
    link = pickLink(candidates, signals);
  }
  if (link === null && text) link = pickLink(textLinkCandidates(text, textUrls), signals);
  return { otp, verification_link: link };
}
