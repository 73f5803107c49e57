// The candidates for a one-time code in a part: every digit cluster of 4–6 digits (joined by one
// space, NBSP, hyphen or dot, an en dash between 3-digit halves, or one digit per cell/line) that
// passes the hard filters of its shape and its neighbours (see otp.ts). One linear scan per part.
import { MASK } from './text-prep.js';

export interface Candidate {
  value: string;
  start: number;
  end: number;
}

const MAX_CANDIDATES = 400;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const inSet = (set: string, ch: string): boolean => ch !== '' && set.includes(ch);
const WORD_CHAR = /[A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF]/;
const HYPHENS = '-\u2010\u2011';
/** Middle dots and bullets used as display separators inside a code ("4·8·8·1·6·7", "123·456"). */
const DOTS = '\u00B7\u2027\u2219\u22C5';
const DASHES = '-\u2010\u2011\u2013\u2014\u00B7\u2022';
/**
 * An en dash or minus sign joins two 3-digit halves presented as a value ("Code: 318–207", or alone
 * on its line), never a range ("gates 101–120", "1990–2025").
 */
const HALVES = '\u2013\u2212';
const VALUE_BEFORE = /(?:^|\n|[:：] ?)$/;
const BAD_BEFORE = '/=_\\@#+$€£¥￥₹₽₩©№%&?§' + MASK;
const BAD_AFTER = '/=_\\@%€$£¥￥°₽₩円元원' + MASK;
const JOINERS = '.,:/';
const CURRENCY_BEFORE = /(?:usd|eur|gbp|chf|jpy|cny|rmb|rub|brl|inr|aud|cad|us\$|r\$|rs\.?|руб\.?)\s?$/i;
// "****4821", "•••• 4821", "XXXX-4821" (masked card/account digits, 4 of them or after 3+ mask
// characters, so Markdown "**482913**" survives) and "© 2025".
const MASKED_LONG = /[*•·xX]{3,}[ -]?$/;
const MASKED_SHORT = /[*•·xX]{2}[ -]?$/;
const COPYRIGHT = /(?:©|\(c\)|copyright) ?$/i;
/** Units, currencies and counters that follow quantities, never codes ("10 minutes", "1299 €", "5分"). */
const UNITS = [
  '€', '\\$', '£', '¥', '₽', '₩', '₹', '%', 'min(?:ute)?s?', 'minuten?', 'minutos?', 'minuti', 'hours?', 'hrs?',
  'stunden?', 'horas?', 'heures?', 'ore', 'seconds?', 'secs?', 'sekunden', 'segundos', 'days?', 'tage?', 'días?',
  'dias?', 'jours?', 'giorni', 'weeks?', 'months?', 'years?', 'jahre?', 'años?', 'anos?', 'ans', 'km', 'mi',
  'miles?', 'kg', 'lbs?', 'gb', 'mb', 'kb', 'px', 'pt', 'points?', 'pts', 'times', 'mal', 'veces', 'fois', 'eur',
  'usd', 'gbp', 'chf', 'rub', 'руб', 'zł', 'kr', 'euros?', 'dollars?', 'reais', 'минут', 'час', 'дн', 'сек', 'лет',
  'год', '分', '秒', '時間', '小时', '小時', '天', '日', '年', '月', '号', '個', '个', '件', '名', '人', '분', '초',
  '시간', '일', '년', '개', '번',
];
const UNIT_AFTER = new RegExp(`^ ?(?:${UNITS.join('|')})(?![a-z])`, 'i');

const MONTHS = 'jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|januar|februar|märz|mai|juni|juli|okt|dez|janv|févr|' +
  'mars|avr|juin|juil|août|déc|ene|abr|ago|dic|fev|out|янв|фев|мар|апр|мая|май|июн|июл|авг|сен|окт|ноя|дек';
/** A month name (and optional day) right before a year: "May 31, 2025", "12 Mai 2025". */
const MONTH = new RegExp(`(?:^|[^a-zа-я])(?:${MONTHS})[a-zäéûçа-я]*\\.?,? ?(?:\\d{1,2}(?:st|nd|rd|th|\\.)?,? ?)?$`, 'i');
const MONTH_AFTER = /^[.,]? ?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|年|г\.)/i;

/** Scan a part for digit clusters and return those that pass the hard filters. */
export function findCandidates(text: string): Candidate[] {
  const out: Candidate[] = [];
  const n = text.length;
  let i = 0;
  while (i < n && out.length < MAX_CANDIDATES) {
    if (!isDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    // Collect groups joined by one separator; a line break may only join single digits.
    const groups: Array<[number, number]> = [];
    let j = i;
    for (;;) {
      const gs = j;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
      groups.push([gs, j]);
      let k = j;
      const c = text[k];
      let newline = false;
      let spacedDash = false;
      let enDash = false;
      if (c !== undefined && (inSet(HYPHENS, c) || inSet(DOTS, c))) k++;
      else if (c !== undefined && inSet(HALVES, c) && groups.length === 1 && j - gs === 3 && VALUE_BEFORE.test(text.slice(Math.max(0, gs - 3), gs))) {
        k++;
        enDash = true;
      } else if (c === ' ' && inSet(DASHES, text[k + 1] ?? '') && text[k + 2] === ' ') {
        k += 3;
        spacedDash = true;
      } else {
        while (k < n && k - j < 4 && (text[k] === ' ' || text[k] === '\n')) {
          if (text[k] === '\n') newline = true;
          k++;
        }
      }
      if (k === j || k >= n || !isDigit(text.charCodeAt(k))) break;
      let ke = k;
      while (ke < n && isDigit(text.charCodeAt(ke))) ke++;
      // A line break joins only single digits (one per cell/line); " - " only 3-digit halves ("482 - 913").
      if (newline && (j - gs > 1 || ke - k > 1)) break;
      if (spacedDash && (j - gs < 3 || ke - k < 3)) break;
      if (enDash && (ke - k !== 3 || (ke < n && isDigit(text.charCodeAt(ke))))) break;
      // Stop collecting past a plausible length; the cluster is rejected anyway.
      if (groups.length > 12) break;
      j = k;
    }
    const start = groups[0]![0];
    const end = groups[groups.length - 1]![1];
    i = end;
    const cand = validate(text, groups, start, end);
    if (cand) out.push(cand);
  }
  return out;
}

function validate(text: string, groups: Array<[number, number]>, start: number, end: number): Candidate | null {
  const lengths = groups.map(([a, b]) => b - a);
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total < 4 || total > 6) return null;
  // Mixed single digits and longer groups ("0 800 55") are phone-like, never a code.
  if (groups.length > 1 && lengths.some((l) => l === 1) && lengths.some((l) => l > 1)) return null;
  const before = text[start - 1] ?? '';
  const before2 = text[start - 2] ?? '';
  const after = text[end] ?? '';
  const after2 = text[end + 1] ?? '';
  if (WORD_CHAR.test(after) || inSet(BAD_AFTER, after)) return null;
  if (inSet(JOINERS, after) && isDigit(after2.charCodeAt(0))) return null;
  if (inSet(HYPHENS, after) && after2 !== '' && !/\s/.test(after2)) return null;
  if (inSet(BAD_BEFORE, before) || WORD_CHAR.test(before)) return null;
  if (inSet(JOINERS, before) && isDigit(before2.charCodeAt(0))) return null;
  if (inSet(HYPHENS, before)) {
    // A short capital prefix ("G-123456") is allowed; a word, digit or range before the hyphen is not.
    const m = /(?:^|[^A-Za-z])([A-Z]{1,4})$/.exec(text.slice(Math.max(0, start - 6), start - 1));
    if (!m && before2 !== '' && !/\s/.test(before2)) return null;
  }
  const head = text.slice(Math.max(0, start - 16), start);
  // "**4821" masks a card; "**4821**" is Markdown bold around a code.
  const boldMarkdown = head.endsWith('**') && text.startsWith('**', end);
  if (CURRENCY_BEFORE.test(head) || COPYRIGHT.test(head) || (!boldMarkdown && (MASKED_LONG.test(head) || (total === 4 && MASKED_SHORT.test(head))))) return null;
  if (UNIT_AFTER.test(text.slice(end, end + 12))) return null;
  const value = groups.map(([a, b]) => text.slice(a, b)).join('');
  if (total === 5 && /(?:^|[^A-Za-z])[A-Z]{2} $/.test(head)) return null; // US "CA 94158" ZIP
  if (total === 4 && /^(?:19|20)\d\d$/.test(value) && (MONTH.test(head) || MONTH_AFTER.test(text.slice(end, end + 6)))) return null;
  return { value, start, end };
}
